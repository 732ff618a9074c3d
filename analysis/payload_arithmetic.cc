#include "analysis/payload_arithmetic.h"

#include <cmath>

#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/simulated_masks.h"

namespace prunex {

Payload compact_payload(const ModelLayout& layout, SparsityKinds kinds, double keep) {
  const SparsitySpec spec = SparsitySpec::build(layout, kinds, KeepRate::of_fraction(keep));
  // One node (or nodes that agree): the union is the node mask.
  const ModelMask mask = synthetic_union_mask(layout, spec, 0.0, 1);
  const CompactionPlan plan(layout, mask);
  return {plan.dense_bytes(), plan.compact_bytes()};
}

KeepForFraction keep_for_fraction(const ModelLayout& layout, SparsityKinds kinds, double target,
                                  double resolution) {
  PRUNEX_USAGE(target > 0 && target <= 1, "target payload fraction must be in (0, 1] (got ", target,
               ")");
  PRUNEX_USAGE(resolution > 0 && resolution < 1, "resolution must be in (0, 1) (got ", resolution,
               ")");
  // Integer steps of `resolution`: lo misses the target (or is the first step), hi reaches it.
  const auto steps = static_cast<int64_t>(std::llround(1.0 / resolution));
  auto at = [&](int64_t i) { return compact_payload(layout, kinds, i * resolution); };
  int64_t lo = 1, hi = steps;
  if (at(lo).fraction() >= target) hi = lo;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (at(mid).fraction() >= target ? hi : lo) = mid;
  }
  KeepForFraction r;
  r.keep = hi * resolution;
  r.payload = at(hi);
  r.below = hi > 1 ? at(hi - 1) : r.payload;
  return r;
}

}  // namespace prunex
