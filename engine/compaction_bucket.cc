// pack / unpack of one bucket at a time, for pipelined buckets (hsadmm --pipeline-buckets),
// and the 16-bit wire type's pack / unpack (--wire-dtype), converting each value as it is
// gathered or scattered:
// bucket b can travel while b + 1 is packed and b - 1 unpacked. Each call walks the layers
// that overlap the bucket in stream order and copies only what falls in it; unpack writes a
// layer's zeros (pruned filters and channels) with the bucket that holds the layer's first
// value, so every position is written exactly once over all buckets.
#include <algorithm>

#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

// The layer's compact values in stream order as spans: fn(source offset in the layer, stream
// position, length).
template <typename Fn>
void for_each_span(const CompactLayer& c, Fn&& fn) {
  if (c.whole) {
    fn(int64_t{0}, c.stream_offset, c.compact_numel);
    return;
  }
  const int64_t k = c.dims.k, row = c.dims.in * k;
  int64_t pos = c.stream_offset;
  for (int32_t o : c.k_out)
    for (const ChannelRun& r : c.runs) {
      fn(o * row + r.first * k, pos, r.count * k);
      pos += r.count * k;
    }
}

// Zeros at the layer's positions outside its compact slice.
void zero_pruned(const CompactLayer& c, float* out) {
  if (c.whole) return;
  const int64_t k = c.dims.k, row = c.dims.in * k;
  int64_t next = 0;
  for (int32_t o : c.k_out) {
    std::fill(out + next * row, out + o * row, 0.0f);
    float* dr = out + o * row;
    int64_t p = 0;
    for (const ChannelRun& r : c.runs) {
      std::fill(dr + p, dr + r.first * k, 0.0f);
      p = (r.first + r.count) * k;
    }
    std::fill(dr + p, dr + row, 0.0f);
    next = o + 1;
  }
  std::fill(out + next * row, out + c.dims.out * row, 0.0f);
}

struct Range {
  int64_t lo, hi;  // stream positions of the bucket
};

Range bucket_range(const CompactionPlan& plan, int b) {
  PRUNEX_CHECK(b >= 0 && b < plan.buckets(), "bucket ", b, " of ", plan.buckets());
  const int64_t lo = static_cast<int64_t>(b) * plan.bucket_capacity();
  return {lo, lo + plan.bucket_floats(b)};
}

template <typename T, typename Convert>
void pack_one(const CompactionPlan& plan, const float* const* z, const float* const* v, T* bucket,
              int b, Convert conv) {
  const Range br = bucket_range(plan, b);
  for (size_t l = 0; l < plan.layers().size(); ++l) {
    const CompactLayer& c = plan.layers()[l];
    if (c.stream_offset >= br.hi || c.stream_offset + c.compact_numel <= br.lo) continue;
    const float* vl = v ? v[l] : nullptr;
    for_each_span(c, [&](int64_t src, int64_t pos, int64_t n) {
      const int64_t a = std::max(pos, br.lo), e = std::min(pos + n, br.hi);
      for (int64_t s = a; s < e; ++s) {
        const int64_t i = src + (s - pos);
        bucket[s - br.lo] = conv(vl ? z[l][i] + vl[i] : z[l][i]);
      }
    });
  }
}

template <typename T, typename Convert>
void unpack_one(const CompactionPlan& plan, const T* bucket, float* const* out, float scale, int b,
                Convert conv) {
  const Range br = bucket_range(plan, b);
  for (size_t l = 0; l < plan.layers().size(); ++l) {
    const CompactLayer& c = plan.layers()[l];
    if (c.bucket == b) zero_pruned(c, out[l]);
    if (c.stream_offset >= br.hi || c.stream_offset + c.compact_numel <= br.lo) continue;
    for_each_span(c, [&](int64_t dst, int64_t pos, int64_t n) {
      const int64_t a = std::max(pos, br.lo), e = std::min(pos + n, br.hi);
      for (int64_t s = a; s < e; ++s) out[l][dst + (s - pos)] = conv(bucket[s - br.lo]) * scale;
    });
  }
}

}  // namespace

void pack_bucket(const CompactionPlan& plan, const float* const* z, const float* const* v,
                 float* bucket, int b) {
  pack_one(plan, z, v, bucket, b, [](float x) { return x; });
}

void unpack_bucket(const CompactionPlan& plan, const float* bucket, float* const* out, float scale,
                   int b) {
  unpack_one(plan, bucket, out, scale, b, [](float x) { return x; });
}

void pack_wire_bucket(const CompactionPlan& plan, DType wire, const float* const* z,
                      const float* const* v, uint16_t* bucket, int b) {
  pack_one(plan, z, v, bucket, b, [wire](float x) { return to_wire(wire, x); });
}

void unpack_wire_bucket(const CompactionPlan& plan, DType wire, const uint16_t* bucket,
                        float* const* out, float scale, int b) {
  unpack_one(plan, bucket, out, scale, b, [wire](uint16_t x) { return from_wire(wire, x); });
}

// The whole plan in a wire type: every bucket in turn (the fp32 calls have vectorised paths
// of their own in compaction.cc; the converting ones share this walk).
void pack_wire(const CompactionPlan& plan, DType wire, const float* const* z, const float* const* v,
               uint16_t* const* buckets) {
  PRUNEX_CHECK(is_wire_dtype(wire), "wire type ", dtype_name(wire));
  for (int b = 0; b < plan.buckets(); ++b) pack_wire_bucket(plan, wire, z, v, buckets[b], b);
}

void unpack_wire(const CompactionPlan& plan, DType wire, const uint16_t* const* buckets,
                 float* const* out, float scale) {
  PRUNEX_CHECK(is_wire_dtype(wire), "wire type ", dtype_name(wire));
  for (int b = 0; b < plan.buckets(); ++b)
    unpack_wire_bucket(plan, wire, buckets[b], out, scale, b);
}

}  // namespace prunex
