// Physical shrinkage (section 4.4): a plan computed once from the layout and the global
// masks says where each layer's compact slice {|K_out|, |K_in|, kh, kw} lives in the
// communication buckets; pack gathers the kept slices of z + v into the buckets and unpack
// scatters them back, writing zeros everywhere else. Every layer of the layout travels
// (unpruned ones whole), since all of them are averaged across nodes.
//
// Buckets: the compact layers are laid end to end, in layout order, in one logical stream
// of floats that is cut into buckets of exactly bucket_floats (the last one shorter). A
// layer may therefore start in one bucket and end in a later one, and a layer larger than
// a bucket spans several; pack/unpack split copies at the cuts. The plan depends only on
// the layout, the masks and the bucket size, so ranks with identical masks get identical
// plans (fingerprint() lets them check).
//
// Speed: layers whose slice lies in one bucket go through AVX-512 expand/compress kernels
// when the CPU has them (compaction_simd.h), the rest through precomputed channel runs or
// column lists; the AVX-512 kernels write whole lines with ordinary stores, the rest with
// streaming stores (stream_store.h), fenced before returning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/types.h"

namespace prunex {

// H-SADMM's inter-node buckets: --bucket-mib's default in train and simulate.
constexpr int64_t kDefaultBucketBytes = int64_t(32) << 20;
constexpr double kDefaultBucketMib = static_cast<double>(kDefaultBucketBytes >> 20);

// A run of kept input channels [first, first + count) of one layer.
struct ChannelRun {
  int32_t first = 0;
  int32_t count = 0;
};

struct CompactLayer {
  LayerDims dims;                      // full {out, in, k}
  std::vector<int64_t> full_shape;     // as in the layout
  std::vector<int64_t> compact_shape;  // conv {|K_out|, |K_in|, kh, kw}; fc {|K_out|, |K_in|}
  std::vector<int32_t> k_out;          // kept filters, ascending
  std::vector<int32_t> k_in;           // kept channels, ascending
  std::vector<ChannelRun> runs;        // k_in as maximal contiguous runs
  // Short runs: rows are gathered through `cols` (kept column offsets c*k + p in a row).
  // `slot` (gather layers only) maps each column of a full row to its place in the compact
  // row, or -1, so unpack writes full rows front to back.
  bool gather = false;
  std::vector<int32_t> cols;
  std::vector<int32_t> slot;
  // Element mask of the full tensor, flat, one bit per float (+1 word of padding); set when
  // the compact slice lies in one bucket, for the vectorised kernels (compaction_simd.h).
  std::vector<uint64_t> flat_bits;
  int64_t compact_numel = 0;
  int64_t stream_offset = 0;  // floats from the start of the stream
  int bucket = 0;             // bucket holding the first float
  int64_t offset = 0;         // offset in floats inside that bucket
  bool whole = false;         // everything kept: one contiguous copy
};

class CompactionPlan {
 public:
  CompactionPlan(const ModelLayout& layout, const ModelMask& mask,
                 int64_t bucket_bytes = kDefaultBucketBytes);

  const std::vector<CompactLayer>& layers() const { return layers_; }
  int buckets() const { return static_cast<int>(bucket_floats_.size()); }
  int64_t bucket_floats(int b) const { return bucket_floats_[b]; }
  int64_t bucket_capacity() const { return capacity_; }  // floats per full bucket
  int64_t compact_floats() const { return compact_floats_; }
  int64_t dense_floats() const { return dense_floats_; }
  int64_t compact_bytes() const { return compact_floats_ * 4; }
  int64_t dense_bytes() const { return dense_floats_ * 4; }
  // Hash of everything that fixes the layout of the buckets.
  uint64_t fingerprint() const;

 private:
  std::vector<CompactLayer> layers_;
  std::vector<int64_t> bucket_floats_;
  int64_t capacity_ = 0;
  int64_t compact_floats_ = 0;
  int64_t dense_floats_ = 0;
};

// Cache-line (64-byte) aligned allocation for std::vector: pack streams whole lines into
// buckets that start on a line.
template <typename T>
struct LineAllocator {
  using value_type = T;
  LineAllocator() = default;
  template <typename U>
  LineAllocator(const LineAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U>
  bool operator==(const LineAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const LineAllocator<U>&) const {
    return false;
  }
};
using LineVector = std::vector<float, LineAllocator<float>>;

// Owns one buffer per bucket of a plan, sized by it, each 64-byte aligned (buckets from
// elsewhere work too; aligned ones pack faster): fp32 values (BucketSet), or the 16-bit wire
// type of --wire-dtype, one uint16_t per value (WireBucketSet, engine/wire_dtype.h).
template <typename T>
class BasicBucketSet {
 public:
  // pad_to > 1: each bucket's storage is rounded up to a multiple of pad_to values, zeros
  // past values(b) (hsadmm-rail splits a bucket into pad_to equal slices).
  explicit BasicBucketSet(const CompactionPlan& plan, int pad_to = 1);
  T* const* data() { return ptrs_.data(); }
  const T* const* data() const { return ptrs_.data(); }
  T* bucket(int b) { return ptrs_[b]; }
  int64_t values(int b) const { return values_[b]; }
  int64_t padded_values(int b) const { return static_cast<int64_t>(storage_[b].size()); }
  int size() const { return static_cast<int>(storage_.size()); }

 private:
  std::vector<std::vector<T, LineAllocator<T>>> storage_;
  std::vector<int64_t> values_;
  std::vector<T*> ptrs_;
};
using BucketSet = BasicBucketSet<float>;
using WireBucketSet = BasicBucketSet<uint16_t>;
extern template class BasicBucketSet<float>;
extern template class BasicBucketSet<uint16_t>;

// buckets[b] <- compact(z + v); v may be null (pack z alone). z[l], v[l]: layer l, full size.
void pack(const CompactionPlan& plan, const float* const* z, const float* const* v,
          float* const* buckets);
// out[l] <- scale * expand(buckets) with zeros outside K_out x K_in. scale = 1/M turns an
// all-reduced sum into the average.
void unpack(const CompactionPlan& plan, const float* const* buckets, float* const* out,
            float scale = 1.0f);
// The same with wire buckets: each value converted to `wire` as it is packed, and back to
// fp32 (then scaled) as it is unpacked (compaction_bucket.cc).
// One bucket b only (pipelined buckets, compaction_bucket.cc): the same values as the
// whole-plan calls put in or take from that bucket; unpack_bucket also writes the zeros of
// every layer whose first compact value lies in bucket b, so unpacking all buckets in any
// order writes every position once.
void pack_bucket(const CompactionPlan& plan, const float* const* z, const float* const* v,
                 float* bucket, int b);
void unpack_bucket(const CompactionPlan& plan, const float* bucket, float* const* out, float scale,
                   int b);
void pack_wire_bucket(const CompactionPlan& plan, DType wire, const float* const* z,
                      const float* const* v, uint16_t* bucket, int b);
void unpack_wire_bucket(const CompactionPlan& plan, DType wire, const uint16_t* bucket,
                        float* const* out, float scale, int b);
void pack_wire(const CompactionPlan& plan, DType wire, const float* const* z, const float* const* v,
               uint16_t* const* buckets);
void unpack_wire(const CompactionPlan& plan, DType wire, const uint16_t* const* buckets,
                 float* const* out, float scale = 1.0f);

}  // namespace prunex
