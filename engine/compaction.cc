// pack / unpack: the hot path. Everything they need is precomputed in the plan; nothing is
// allocated here. Rows that fit in the current bucket take a path without cut checks.
#include <algorithm>
#include <cstring>

#include "engine/compaction.h"

namespace prunex {

namespace {

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

inline void add_into(float* __restrict d, const float* __restrict z, const float* __restrict v,
                     int64_t n) {
  if (v == nullptr) {
    std::memcpy(d, z, size_t(n) * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < n; ++i) d[i] = z[i] + v[i];
}

inline void scale_into(float* __restrict d, const float* __restrict s, float scale, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = s[i] * scale;
}

// Packs n contiguous source floats, cutting at bucket ends.
void pack_span(Cursor& cur, const float* z, const float* v, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    add_into(cur.here(), z, v, m);
    z += m;
    if (v) v += m;
    n -= m;
    cur.advance(m);
  }
}

void unpack_span(Cursor& cur, float* d, float scale, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    scale_into(d, cur.here(), scale, m);
    d += m;
    n -= m;
    cur.advance(m);
  }
}

void pack_row(const CompactLayer& c, Cursor& cur, const float* zr, const float* vr) {
  const int64_t crow = static_cast<int64_t>(c.k_in.size()) * c.dims.k;
  if (c.gather && cur.room() >= crow) {
    float* __restrict d = cur.here();
    const int32_t* cols = c.cols.data();
    if (vr)
      for (int64_t j = 0; j < crow; ++j) d[j] = zr[cols[j]] + vr[cols[j]];
    else
      for (int64_t j = 0; j < crow; ++j) d[j] = zr[cols[j]];
    cur.advance(crow);
    return;
  }
  const int64_t k = c.dims.k;
  if (cur.room() >= crow) {
    float* d = cur.here();
    for (const ChannelRun& r : c.runs) {
      const int64_t n = r.count * k;
      add_into(d, zr + r.first * k, vr ? vr + r.first * k : nullptr, n);
      d += n;
    }
    cur.advance(crow);
    return;
  }
  for (const ChannelRun& r : c.runs)
    pack_span(cur, zr + r.first * k, vr ? vr + r.first * k : nullptr, r.count * k);
}

void unpack_row(const CompactLayer& c, Cursor& cur, float* dr, float scale) {
  const int64_t k = c.dims.k;
  const int64_t row = c.dims.in * k;
  const int64_t crow = static_cast<int64_t>(c.k_in.size()) * k;
  if (c.gather && cur.room() >= crow) {
    // The row is small and cache-resident: zero it whole, then scatter.
    std::fill(dr, dr + row, 0.0f);
    const float* __restrict s = cur.here();
    const int32_t* cols = c.cols.data();
    for (int64_t j = 0; j < crow; ++j) dr[cols[j]] = s[j] * scale;
    cur.advance(crow);
    return;
  }
  const bool fast = cur.room() >= crow;
  const float* s = fast ? cur.here() : nullptr;
  int64_t pos = 0;
  for (const ChannelRun& r : c.runs) {
    const int64_t start = r.first * k, n = r.count * k;
    std::fill(dr + pos, dr + start, 0.0f);
    if (fast) {
      scale_into(dr + start, s, scale, n);
      s += n;
    } else {
      unpack_span(cur, dr + start, scale, n);
    }
    pos = start + n;
  }
  std::fill(dr + pos, dr + row, 0.0f);
  if (fast) cur.advance(crow);
}

}  // namespace

void pack(const CompactionPlan& plan, const float* const* z, const float* const* v,
          float* const* buckets) {
  const auto& layers = plan.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    const CompactLayer& c = layers[l];
    if (c.compact_numel == 0) continue;
    Cursor cur{buckets, plan.bucket_capacity(), c.bucket, c.offset};
    const float* vl = v ? v[l] : nullptr;
    if (c.whole) {
      pack_span(cur, z[l], vl, c.compact_numel);
      continue;
    }
    const int64_t row = c.dims.in * c.dims.k;
    for (int32_t o : c.k_out) pack_row(c, cur, z[l] + o * row, vl ? vl + o * row : nullptr);
  }
}

void unpack(const CompactionPlan& plan, const float* const* buckets, float* const* out,
            float scale) {
  // Cursor writes nothing through its bucket pointers in unpack.
  float* const* bk = const_cast<float* const*>(buckets);
  const auto& layers = plan.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    const CompactLayer& c = layers[l];
    Cursor cur{bk, plan.bucket_capacity(), c.bucket, c.offset};
    if (c.whole) {
      unpack_span(cur, out[l], scale, c.compact_numel);
      continue;
    }
    const int64_t row = c.dims.in * c.dims.k;
    int64_t next = 0;  // first row not yet written
    for (int32_t o : c.k_out) {
      std::fill(out[l] + next * row, out[l] + o * row, 0.0f);
      unpack_row(c, cur, out[l] + o * row, scale);
      next = o + 1;
    }
    std::fill(out[l] + next * row, out[l] + c.dims.out * row, 0.0f);
  }
}

}  // namespace prunex
