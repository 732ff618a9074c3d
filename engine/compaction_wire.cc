// pack / unpack with 16-bit wire buckets (--wire-dtype bf16 | f16): the same walk over the
// plan's rows and channel runs as compaction.cc's portable path, converting each element as
// it is gathered or scattered, so the conversion costs no pass of its own.
#include <algorithm>
#include <cstring>

#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

struct WireCursor {
  uint16_t* const* buckets;
  int64_t cap;
  int b;
  int64_t off;
  int64_t room() const { return cap - off; }
  uint16_t* here() const { return buckets[b] + off; }
  void advance(int64_t n) {
    off += n;
    if (off == cap) {
      ++b;
      off = 0;
    }
  }
};

template <DType W>
void pack_span(WireCursor& cur, const float* z, const float* v, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    uint16_t* d = cur.here();
    if (v)
      for (int64_t i = 0; i < m; ++i) d[i] = to_wire(W, z[i] + v[i]);
    else
      for (int64_t i = 0; i < m; ++i) d[i] = to_wire(W, z[i]);
    z += m;
    if (v) v += m;
    n -= m;
    cur.advance(m);
  }
}

template <DType W>
void unpack_span(WireCursor& cur, float* d, float scale, int64_t n) {
  while (n > 0) {
    const int64_t m = std::min(n, cur.room());
    const uint16_t* s = cur.here();
    for (int64_t i = 0; i < m; ++i) d[i] = from_wire(W, s[i]) * scale;
    d += m;
    n -= m;
    cur.advance(m);
  }
}

template <DType W>
void pack_all(const CompactionPlan& plan, const float* const* z, const float* const* v,
              uint16_t* const* buckets) {
  for (size_t l = 0; l < plan.layers().size(); ++l) {
    const CompactLayer& c = plan.layers()[l];
    if (c.compact_numel == 0) continue;
    WireCursor cur{buckets, plan.bucket_capacity(), c.bucket, c.offset};
    const float* vl = v ? v[l] : nullptr;
    if (c.whole) {
      pack_span<W>(cur, z[l], vl, c.compact_numel);
      continue;
    }
    const int64_t k = c.dims.k, row = c.dims.in * k;
    for (int32_t o : c.k_out)
      for (const ChannelRun& r : c.runs)
        pack_span<W>(cur, z[l] + o * row + r.first * k, vl ? vl + o * row + r.first * k : nullptr,
                     r.count * k);
  }
}

template <DType W>
void unpack_all(const CompactionPlan& plan, const uint16_t* const* buckets, float* const* out,
                float scale) {
  uint16_t* const* bk = const_cast<uint16_t* const*>(buckets);  // read only
  for (size_t l = 0; l < plan.layers().size(); ++l) {
    const CompactLayer& c = plan.layers()[l];
    WireCursor cur{bk, plan.bucket_capacity(), c.bucket, c.offset};
    if (c.whole) {
      unpack_span<W>(cur, out[l], scale, c.compact_numel);
      continue;
    }
    const int64_t k = c.dims.k, row = c.dims.in * k;
    int64_t next = 0;  // first row not yet written
    for (int32_t o : c.k_out) {
      std::fill(out[l] + next * row, out[l] + o * row, 0.0f);
      float* dr = out[l] + o * row;
      int64_t pos = 0;
      for (const ChannelRun& r : c.runs) {
        std::fill(dr + pos, dr + r.first * k, 0.0f);
        unpack_span<W>(cur, dr + r.first * k, scale, r.count * k);
        pos = (r.first + r.count) * k;
      }
      std::fill(dr + pos, dr + row, 0.0f);
      next = o + 1;
    }
    std::fill(out[l] + next * row, out[l] + c.dims.out * row, 0.0f);
  }
}

}  // namespace

void pack_wire(const CompactionPlan& plan, DType wire, const float* const* z, const float* const* v,
               uint16_t* const* buckets) {
  PRUNEX_CHECK(wire == DType::bf16 || wire == DType::f16, "wire type ", dtype_name(wire));
  if (wire == DType::bf16)
    pack_all<DType::bf16>(plan, z, v, buckets);
  else
    pack_all<DType::f16>(plan, z, v, buckets);
}

void unpack_wire(const CompactionPlan& plan, DType wire, const uint16_t* const* buckets,
                 float* const* out, float scale) {
  PRUNEX_CHECK(wire == DType::bf16 || wire == DType::f16, "wire type ", dtype_name(wire));
  if (wire == DType::bf16)
    unpack_all<DType::bf16>(plan, buckets, out, scale);
  else
    unpack_all<DType::f16>(plan, buckets, out, scale);
}

WireBucketSet::WireBucketSet(const CompactionPlan& plan, int pad_to) {
  PRUNEX_CHECK(pad_to >= 1, "pad_to ", pad_to);
  for (int b = 0; b < plan.buckets(); ++b) {
    const int64_t n = plan.bucket_floats(b);
    floats_.push_back(n);
    storage_.emplace_back((n + pad_to - 1) / pad_to * pad_to, uint16_t{0});
  }
  for (auto& s : storage_) ptrs_.push_back(s.data());
}

}  // namespace prunex
