// pack / unpack: the hot path. Everything they need is precomputed in the plan; nothing is
// allocated here. Rows that fit in the current bucket take a path without cut checks, and
// every destination is written front to back (the row code with streaming stores,
// stream_store.h; the AVX-512 kernels with ordinary stores of whole lines).
#include <algorithm>
#include <cstring>

#include "engine/compaction.h"
#include "engine/compaction_simd.h"
#include "engine/stream_store.h"

namespace prunex {

namespace {

using detail::store_nt;
using detail::stream_add;
using detail::stream_scale;
using detail::stream_zero;

// x with its bits ANDed with m: x for m = ~0, +0.0f for m = 0.
inline float and_bits(float x, int32_t m) {
  int32_t b;
  std::memcpy(&b, &x, sizeof b);
  b &= m;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// Position in the bucket stream.
struct Cursor {
  float* const* buckets;
  int64_t cap;
  int b;
  int64_t off;
  float* here() const { return buckets[b] + off; }
  int64_t room() const { return cap - off; }
  void advance(int64_t n) {
    off += n;
    if (off == cap) {
      ++b;
      off = 0;
    }
  }
};

// Packs n contiguous source floats, cutting at bucket ends.
void pack_span(Cursor& cur, const float* z, const float* v, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    stream_add(cur.here(), z, v, m);
    z += m;
    if (v) v += m;
    n -= m;
    cur.advance(m);
  }
}

void unpack_span(Cursor& cur, float* d, float scale, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    stream_scale(d, cur.here(), scale, m);
    d += m;
    n -= m;
    cur.advance(m);
  }
}

void pack_row(const CompactLayer& c, Cursor& cur, const float* zr, const float* vr) {
  const int64_t crow = static_cast<int64_t>(c.k_in.size()) * c.dims.k;
  const int64_t k = c.dims.k;
  if (cur.room() < crow) {  // the row straddles a bucket cut
    for (const ChannelRun& r : c.runs)
      pack_span(cur, zr + r.first * k, vr ? vr + r.first * k : nullptr, r.count * k);
    return;
  }
  float* d = cur.here();
  if (c.gather) {
    const int32_t* cols = c.cols.data();
    if (vr)
      for (int64_t j = 0; j < crow; ++j) store_nt(d + j, zr[cols[j]] + vr[cols[j]]);
    else
      for (int64_t j = 0; j < crow; ++j) store_nt(d + j, zr[cols[j]]);
  } else {
    for (const ChannelRun& r : c.runs) {
      const int64_t n = r.count * k;
      stream_add(d, zr + r.first * k, vr ? vr + r.first * k : nullptr, n);
      d += n;
    }
  }
  cur.advance(crow);
}

void unpack_row(const CompactLayer& c, Cursor& cur, float* dr, float scale) {
  const int64_t k = c.dims.k;
  const int64_t row = c.dims.in * k;
  const int64_t crow = static_cast<int64_t>(c.k_in.size()) * k;
  const bool fast = cur.room() >= crow;
  if (c.gather && fast) {
    const float* s = cur.here();
    const int32_t* slot = c.slot.data();
    // Branch-free: kept and pruned columns alternate unpredictably.
    for (int64_t j = 0; j < row; ++j) {
      const int32_t q = slot[j];
      const int32_t keep = ~(q >> 31);  // all ones when q >= 0, zero for -1
      store_nt(dr + j, and_bits(s[q & keep] * scale, keep));
    }
    cur.advance(crow);
    return;
  }
  const float* s = fast ? cur.here() : nullptr;
  int64_t pos = 0;
  for (const ChannelRun& r : c.runs) {
    const int64_t start = r.first * k, n = r.count * k;
    stream_zero(dr + pos, start - pos);
    if (fast) {
      stream_scale(dr + start, s, scale, n);
      s += n;
    } else {
      unpack_span(cur, dr + start, scale, n);
    }
    pos = start + n;
  }
  stream_zero(dr + pos, row - pos);
  if (fast) cur.advance(crow);
}

}  // namespace

void pack(const CompactionPlan& plan, const float* const* z, const float* const* v,
          float* const* buckets) {
  const auto& layers = plan.layers();
  const bool simd = detail::compaction_simd_enabled();
  for (size_t l = 0; l < layers.size(); ++l) {
    const CompactLayer& c = layers[l];
    if (c.compact_numel == 0) continue;
    Cursor cur{buckets, plan.bucket_capacity(), c.bucket, c.offset};
    const float* vl = v ? v[l] : nullptr;
    if (c.whole) {
      pack_span(cur, z[l], vl, c.compact_numel);
      continue;
    }
    if (simd && !c.flat_bits.empty()) {
      // Floats after this layer in its bucket are written by later layers: scratch room.
      const int64_t slack = plan.bucket_floats(c.bucket) - c.offset - c.compact_numel;
      if ((reinterpret_cast<uintptr_t>(buckets[c.bucket]) & 63u) == 0)
        detail::pack_layer_simd_lines(c, z[l], vl, buckets[c.bucket] + c.offset);
      else
        detail::pack_layer_simd(c, z[l], vl, buckets[c.bucket] + c.offset, slack);
      continue;
    }
    const int64_t row = c.dims.in * c.dims.k;
    for (int32_t o : c.k_out) pack_row(c, cur, z[l] + o * row, vl ? vl + o * row : nullptr);
  }
  detail::stream_fence();
}

void unpack(const CompactionPlan& plan, const float* const* buckets, float* const* out,
            float scale) {
  // Cursor writes nothing through its bucket pointers in unpack.
  float* const* bk = const_cast<float* const*>(buckets);
  const auto& layers = plan.layers();
  const bool simd = detail::compaction_simd_enabled();
  for (size_t l = 0; l < layers.size(); ++l) {
    const CompactLayer& c = layers[l];
    Cursor cur{bk, plan.bucket_capacity(), c.bucket, c.offset};
    if (c.whole) {
      unpack_span(cur, out[l], scale, c.compact_numel);
      continue;
    }
    if (simd && !c.flat_bits.empty()) {
      detail::unpack_layer_simd(c, buckets[c.bucket] + c.offset, out[l], scale);
      continue;
    }
    const int64_t row = c.dims.in * c.dims.k;
    int64_t next = 0;  // first row not yet written
    for (int32_t o : c.k_out) {
      stream_zero(out[l] + next * row, (o - next) * row);
      unpack_row(c, cur, out[l] + o * row, scale);
      next = o + 1;
    }
    stream_zero(out[l] + next * row, (c.dims.out - next) * row);
  }
  detail::stream_fence();
}

}  // namespace prunex
