#include "engine/compaction_simd.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PRUNEX_AVX512 1
#endif

namespace prunex::detail {

namespace {

bool cpu_has_avx512() {
#if PRUNEX_AVX512
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

bool& simd_flag() {
  static bool on = cpu_has_avx512();
  return on;
}

inline bool bit(const uint64_t* bits, int64_t i) {
  return (bits[i >> 6] >> (i & 63)) & 1u;
}

// 16 mask bits starting at element i (flat_bits carries one word of padding).
inline uint32_t bits16(const uint64_t* bits, int64_t i) {
  const int64_t w = i >> 6, sh = i & 63;
  uint64_t v = bits[w] >> sh;
  if (sh > 48) v |= bits[w + 1] << (64 - sh);
  return static_cast<uint32_t>(v & 0xffffu);
}

// kExpand8[m], byte j: how many bits of m lie below bit j, i.e. which of the compact floats
// lane j takes when it is kept (lanes whose bit is clear are zeroed by the permute's mask).
constexpr std::array<uint64_t, 256> make_expand_table() {
  std::array<uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    uint64_t below = 0;
    for (unsigned j = 0; j < 8; ++j) {
      t[m] |= below << (8 * j);
      below += (m >> j) & 1u;
    }
  }
  return t;
}
constexpr std::array<uint64_t, 256> kExpand8 = make_expand_table();
constexpr uint64_t kEveryByte = 0x0101010101010101ull;

}  // namespace

bool compaction_simd_enabled() {
  return simd_flag();
}

bool set_compaction_simd(bool on) {
  const bool prev = simd_flag();
  simd_flag() = on && cpu_has_avx512();
  return prev;
}

#if PRUNEX_AVX512

__attribute__((target("avx512f,popcnt"))) void pack_layer_simd(const CompactLayer& c,
                                                               const float* z, const float* v,
                                                               float* d, int64_t slack) {
  const uint64_t* bits = c.flat_bits.data();
  const int64_t n = c.dims.numel();
  float* const end = d + c.compact_numel;  // d + 16 may pass `end` by at most `slack`
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const uint32_t m = bits16(bits, i);
    if (m == 0) continue;  // pruned filters cost no reads
    __m512 x = _mm512_loadu_ps(z + i);
    if (v) x = _mm512_add_ps(x, _mm512_loadu_ps(v + i));
    if (d + 16 <= end + slack)
      _mm512_storeu_ps(d, _mm512_maskz_compress_ps(static_cast<__mmask16>(m), x));
    else
      _mm512_mask_compressstoreu_ps(d, static_cast<__mmask16>(m), x);
    d += _mm_popcnt_u32(m);
  }
  for (; i < n; ++i)
    if (bit(bits, i)) *d++ = v ? z[i] + v[i] : z[i];
}

// Like pack_layer_simd into a 64-byte aligned bucket, one store per whole line: compressed
// blocks are gathered in a register until a line is ready. The line holding the layer's
// first float may begin with floats of the previous layer: they are read back and rewritten
// unchanged. The last, partial line is written with a masked store. Ordinary stores, not
// streaming ones: on the CPUs measured (results/log/2026-11-26-compaction-on-the-cpu.md) they
// were as fast or faster.
__attribute__((target("avx512f,popcnt"))) void pack_layer_simd_lines(const CompactLayer& c,
                                                                     const float* z, const float* v,
                                                                     float* d) {
  const uint64_t* bits = c.flat_bits.data();
  const int64_t n = c.dims.numel();
  float* line = reinterpret_cast<float*>(reinterpret_cast<uintptr_t>(d) & ~uintptr_t(63));
  int cnt = static_cast<int>(d - line);  // valid lanes in acc
  __m512 acc = _mm512_maskz_load_ps(static_cast<__mmask16>((1u << cnt) - 1), line);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i fifteen = _mm512_set1_epi32(15);
  for (int64_t i = 0; i < n; i += 16) {
    uint32_t m = bits16(bits, i);  // bits past n are zero
    // 2 KiB ahead: two read streams keep more lines in flight than the hardware prefetcher
    // alone (1 KiB was slower, 3 KiB no faster; measured with prunex bench --op compaction).
    // Only lines that hold kept floats: a pruned filter's rows are never read.
    if (i + 512 < n && bits16(bits, i + 512) != 0) {
      _mm_prefetch(reinterpret_cast<const char*>(z + i + 512), _MM_HINT_T0);
      if (v) _mm_prefetch(reinterpret_cast<const char*>(v + i + 512), _MM_HINT_T0);
    }
    if (m == 0) continue;
    const auto lanes = static_cast<__mmask16>(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1);
    __m512 x = _mm512_maskz_loadu_ps(lanes, z + i);
    if (v) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(lanes, v + i));
    const __m512 packed = _mm512_maskz_compress_ps(static_cast<__mmask16>(m), x);
    const int p = static_cast<int>(_mm_popcnt_u32(m));
    // Rotate the new floats up by cnt lanes and place them after the pending ones.
    const __m512i idx = _mm512_and_epi32(_mm512_sub_epi32(lane, _mm512_set1_epi32(cnt)), fifteen);
    const __m512 rot = _mm512_maskz_permutexvar_ps(0xffff, idx, packed);
    const __m512 merged =
        _mm512_mask_blend_ps(static_cast<__mmask16>(~((1u << cnt) - 1)), acc, rot);
    if (cnt + p >= 16) {
      _mm512_store_ps(line, merged);
      line += 16;
      acc = rot;  // lanes [0, cnt + p - 16) hold the floats that did not fit
      cnt += p - 16;
    } else {
      acc = merged;
      cnt += p;
    }
  }
  if (cnt > 0) _mm512_mask_store_ps(line, static_cast<__mmask16>((1u << cnt) - 1), acc);
}

// The expand is a permute with indices from a table rather than vexpandps: on AMD's Zen
// cores vexpandps runs at a fraction of a permute's rate, and the unpack was bound by it, not
// by memory (results/log/2026-11-26-compaction-on-the-cpu.md). The body writes with ordinary
// stores: measured there, streaming stores made this kernel slower, not faster.
__attribute__((target("avx512f,popcnt"))) void unpack_layer_simd(const CompactLayer& c,
                                                                 const float* s, float* out,
                                                                 float scale) {
  const uint64_t* bits = c.flat_bits.data();
  const int64_t n = c.dims.numel();
  const float* const s_end = s + c.compact_numel;
  int64_t i = 0;
  // Scalar head up to a 64-byte boundary, so the body writes whole lines.
  for (; i < n && (reinterpret_cast<uintptr_t>(out + i) & 63u) != 0; ++i)
    out[i] = bit(bits, i) ? *s++ * scale : 0.0f;
  const __m512 k = _mm512_set1_ps(scale);
  // Body: 16 floats are loaded at s, so it runs while 16 remain in the layer's compact slice.
  for (; i + 16 <= n && s + 16 <= s_end; i += 16) {
    const uint32_t m = bits16(bits, i);
    const uint32_t lo = m & 0xffu, hi = m >> 8;
    const uint64_t below = static_cast<uint64_t>(_mm_popcnt_u32(lo));
    const __m128i idx8 = _mm_set_epi64x(static_cast<long long>(kExpand8[hi] + below * kEveryByte),
                                        static_cast<long long>(kExpand8[lo]));
    // (maskz form: GCC 12 warns that the unmasked one reads an undefined register)
    const __m512i idx = _mm512_maskz_cvtepu8_epi32(0xffff, idx8);
    const __m512 x =
        _mm512_maskz_permutexvar_ps(static_cast<__mmask16>(m), idx, _mm512_loadu_ps(s));
    _mm512_store_ps(out + i, _mm512_mul_ps(x, k));
    s += below + _mm_popcnt_u32(hi);
  }
  // The layer's last compact floats: vexpandps reads only the lanes it needs.
  for (; i + 16 <= n; i += 16) {
    const uint32_t m = bits16(bits, i);
    const __m512 x = _mm512_maskz_expandloadu_ps(static_cast<__mmask16>(m), s);
    _mm512_store_ps(out + i, _mm512_mul_ps(x, k));
    s += _mm_popcnt_u32(m);
  }
  for (; i < n; ++i) out[i] = bit(bits, i) ? *s++ * scale : 0.0f;
}

#else

void pack_layer_simd(const CompactLayer&, const float*, const float*, float*, int64_t) {}
void pack_layer_simd_lines(const CompactLayer&, const float*, const float*, float*) {}
void unpack_layer_simd(const CompactLayer&, const float*, float*, float) {}

#endif

}  // namespace prunex::detail
