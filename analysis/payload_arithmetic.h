// What a structured-sparsity configuration does to H-SADMM's inter-node payload, from the
// exact layer tables through the same mask model (engine/simulated_masks.h, nodes agree) and
// CompactionPlan the simulator and live runs use. `prunex reproduce` uses it to show which
// keep rate the paper's "~40% of the dense volume" needs.
#pragma once

#include <cstdint>

#include "engine/layer_layout.h"
#include "engine/sparsity_spec.h"

namespace prunex {

struct Payload {
  int64_t dense_bytes = 0;
  int64_t compact_bytes = 0;
  double fraction() const {
    return dense_bytes > 0 ? static_cast<double>(compact_bytes) / dense_bytes : 0.0;
  }
};

// The compact buffers of one node leader when every pruned layer (the default set: every
// conv weight but the first) keeps `keep` of its groups of each kind in `kinds`.
Payload compact_payload(const ModelLayout& layout, SparsityKinds kinds, double keep);

struct KeepForFraction {
  double keep = 0;  // the smallest keep (to `resolution`) whose payload reaches the target
  Payload payload;  // at `keep`
  Payload below;    // at keep - resolution (under the target), or at keep when keep is minimal
};

// Bisection over keep in [resolution, 1]: the payload fraction is non-decreasing in keep.
KeepForFraction keep_for_fraction(const ModelLayout& layout, SparsityKinds kinds, double target,
                                  double resolution = 1e-3);

}  // namespace prunex
