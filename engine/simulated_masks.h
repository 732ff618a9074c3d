// Global (union) masks for simulated H-SADMM runs, where no projection runs: either a stated
// synthetic model or the densities a live run recorded. Sizes then come from ModelMask and
// CompactionPlan exactly as in live runs. Which groups are kept (the first ones) does not
// change any size, only where the kept slices lie.
//
// Synthetic model. Each node's projection keeps n0 = keep.kept(G) of the G groups of each
// kind of a pruned layer (the spec's rounding). `growth` g in [0, 1] is the probability that
// a node keeps a group which another node pruned; the union over M nodes (eq. 14) keeps
//   n(M) = n0 + round((G - n0) x (1 - (1 - g)^(M - 1)))
// groups, i.e. the union fraction u(M) = 1 - (1 - keep)(1 - g)^(M - 1). g = 0: every node
// keeps the same groups (after convergence, or once the mask is frozen): u = keep. g = keep:
// nodes choose independently: u = 1 - (1 - keep)^M. g = 1: the union is dense for M >= 2.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"

namespace prunex {

// Groups the union of `nodes` node masks keeps, each keeping `kept` of `groups`.
int64_t union_groups(int64_t groups, int64_t kept, double growth, int nodes);

// Per pruned layer and group kind of the spec: keep the first groups_kept(l, kind, G) groups.
ModelMask synthetic_union_mask(const ModelLayout& layout, const SparsitySpec& spec, double growth,
                               int nodes);

// From a live run's recorded densities (pruned layer name -> kept fraction of its elements,
// metrics.json "density"): a layer pruned by c group kinds keeps round(d^(1/c) x G) groups
// of each kind (exact for one kind). Every pruned layer must be present and every name must
// be a pruned layer of the layout; violations are UsageErrors naming `origin`.
ModelMask mask_from_densities(const ModelLayout& layout, const SparsitySpec& spec,
                              const std::map<std::string, double>& density,
                              const std::string& origin);

// A live run's masks iteration by iteration: `masks` holds the distinct ones,
// `of_iteration[k - 1]` iteration k's index into them.
struct RecordedMasks {
  std::vector<ModelMask> masks;
  std::vector<int> of_iteration;
  bool empty() const { return of_iteration.empty(); }
  // Iteration k's mask (k >= 1; past the recorded iterations, the last one).
  const ModelMask& of(int k) const {
    return masks[of_iteration[std::min<size_t>(static_cast<size_t>(k), of_iteration.size()) - 1]];
  }
};

}  // namespace prunex
