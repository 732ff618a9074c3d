// DDP's gradient buckets, decided once for the live strategy and the plan builder, by
// PyTorch's rule (torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size,
// as DDP calls it): tensors in reverse order (the last layers' gradients are ready first);
// a tensor joins the open bucket, and the bucket closes once its size reaches the cap, 1 MiB
// for the first bucket and 25 MiB after (so a bucket may exceed its cap by one tensor).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex {

constexpr int64_t kDdpBucketBytes = int64_t(25) << 20;      // PyTorch DDP bucket_cap_mb default
constexpr int64_t kDdpFirstBucketBytes = int64_t(1) << 20;  // PyTorch _DEFAULT_FIRST_BUCKET_BYTES
constexpr double kDdpBucketMib = 25;  // kDdpBucketBytes in MiB: --bucket-cap-mb's default

struct DdpBucket {
  std::vector<int> layers;       // in the order they join (descending layer index)
  std::vector<int64_t> offsets;  // per entry of layers: its first float in the bucket
  int64_t floats = 0;
  // The lowest layer index in the bucket: its gradient is ready last, so the bucket's
  // all-reduce can start once the backward pass has reached it.
  int first_layer() const { return layers.back(); }
};

// numel[l]: elements of tensor l (fp32) in layout order.
std::vector<DdpBucket> ddp_bucket_assignment(const std::vector<int64_t>& numel,
                                             int64_t first_cap_bytes = kDdpFirstBucketBytes,
                                             int64_t cap_bytes = kDdpBucketBytes);
// The buckets of a layout's tensors; cap_bytes: DDP's bucket_cap_mb (--bucket-cap-mb).
std::vector<DdpBucket> ddp_buckets(const ModelLayout& layout, int64_t cap_bytes = kDdpBucketBytes);
// bucket_cap_mb in bytes, as PyTorch's DDP computes it (int(bucket_cap_mb * 1024 * 1024)).
inline int64_t ddp_cap_bytes(double bucket_cap_mb) {
  return static_cast<int64_t>(bucket_cap_mb * 1024 * 1024);
}

}  // namespace prunex
