// Non-temporal (streaming) stores for pack/unpack. Their outputs (buckets, full tensors) are
// far larger than the caches and written once, so ordinary stores cost an extra read of
// every destination line (read-for-ownership); streaming stores skip it. Callers write
// each destination sequentially, so the write-combining buffers fill whole lines, and call
// stream_fence() before the data is handed to another thread or a collective.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace prunex::detail {

inline void store_nt(float* d, float x) {
#if defined(__SSE2__)
  int32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  _mm_stream_si32(reinterpret_cast<int*>(d), bits);
#else
  *d = x;
#endif
}

inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// d[i] = op(i) for i < n, with `op4(i)` giving four lanes at once on the aligned body.
#if defined(__SSE2__)
template <typename Op1, typename Op4>
inline void stream_loop(float* d, int64_t n, Op1 op1, Op4 op4) {
  int64_t i = 0;
  while (i < n && (reinterpret_cast<uintptr_t>(d + i) & 15u) != 0) {
    store_nt(d + i, op1(i));
    ++i;
  }
  for (; i + 4 <= n; i += 4) _mm_stream_ps(d + i, op4(i));
  for (; i < n; ++i) store_nt(d + i, op1(i));
}
#endif

// d = z + v (v null: d = z).
inline void stream_add(float* d, const float* z, const float* v, int64_t n) {
#if defined(__SSE2__)
  if (v)
    stream_loop(
        d, n, [&](int64_t i) { return z[i] + v[i]; },
        [&](int64_t i) { return _mm_add_ps(_mm_loadu_ps(z + i), _mm_loadu_ps(v + i)); });
  else
    stream_loop(
        d, n, [&](int64_t i) { return z[i]; }, [&](int64_t i) { return _mm_loadu_ps(z + i); });
#else
  for (int64_t i = 0; i < n; ++i) d[i] = v ? z[i] + v[i] : z[i];
#endif
}

// d = s * scale.
inline void stream_scale(float* d, const float* s, float scale, int64_t n) {
#if defined(__SSE2__)
  const __m128 k = _mm_set1_ps(scale);
  stream_loop(
      d, n, [&](int64_t i) { return s[i] * scale; },
      [&](int64_t i) { return _mm_mul_ps(_mm_loadu_ps(s + i), k); });
#else
  for (int64_t i = 0; i < n; ++i) d[i] = s[i] * scale;
#endif
}

inline void stream_zero(float* d, int64_t n) {
#if defined(__SSE2__)
  const __m128 z = _mm_setzero_ps();
  stream_loop(
      d, n, [](int64_t) { return 0.0f; }, [&](int64_t) { return z; });
#else
  for (int64_t i = 0; i < n; ++i) d[i] = 0.0f;
#endif
}

}  // namespace prunex::detail
