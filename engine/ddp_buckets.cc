#include "engine/ddp_buckets.h"

#include "engine/error.h"

namespace prunex {

std::vector<DdpBucket> ddp_bucket_assignment(const std::vector<int64_t>& numel,
                                             int64_t first_cap_bytes, int64_t cap_bytes) {
  PRUNEX_CHECK(first_cap_bytes > 0 && cap_bytes > 0, "bucket caps must be positive");
  std::vector<DdpBucket> out;
  DdpBucket open;
  int64_t cap = first_cap_bytes;
  for (int l = static_cast<int>(numel.size()) - 1; l >= 0; --l) {
    open.layers.push_back(l);
    open.offsets.push_back(open.floats);
    open.floats += numel[l];
    if (open.floats * 4 >= cap) {
      out.push_back(std::move(open));
      open = DdpBucket();
      cap = cap_bytes;
    }
  }
  if (!open.layers.empty()) out.push_back(std::move(open));
  return out;
}

std::vector<DdpBucket> ddp_buckets(const ModelLayout& layout, int64_t cap_bytes) {
  std::vector<int64_t> numel;
  for (const auto& l : layout.layers) numel.push_back(l.numel());
  return ddp_bucket_assignment(numel, kDdpFirstBucketBytes, cap_bytes);
}

}  // namespace prunex
