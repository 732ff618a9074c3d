// PacTrain (Wang et al. 2025), decided once for the live
// codec (workloads/train/pactrain_codec.cc, pactrain_prune.cc) and the plan builder
// (plan_pactrain.cc):
// - Pruning, once before training: every conv and fc weight loses round(ratio x numel) of
//   its entries (magnitude: the smallest |w|; GraSP, Wang et al. 2020: the largest -w * Hg),
//   biases and batch norm parameters stay dense. The mask never changes afterwards
//   (gradients are masked, so pruned weights stay exactly zero).
// - Compact buckets: DDP's buckets (engine/ddp_buckets.h); once a bucket's mask has been the
//   same for stable_steps steps, its kept coordinates travel packed in layout order, without
//   indices. Before that the whole bucket travels.
// - Ternary (TernGrad, Wen et al. 2017): per bucket, a MAX all-reduce of max|g| gives the
//   shared scaler s; each value becomes s * sign(g) with probability |g| / s, else 0 (unbiased);
//   the int8 levels are summed over the world (exact for up to 127 ranks) and scaled by s / N.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/counter_rng.h"  // uniform01
#include "engine/ddp_buckets.h"
#include "engine/layer_layout.h"

namespace prunex {

// Default of --stable-steps: the paper gives none. Ten steps of dense all-reduce are a few
// seconds at most, and a mask that stays fixed (the normal case) compacts from step 11.
constexpr int kPactrainStableSteps = 10;
// The int8 sum of ternary levels (-1, 0, 1) is exact while world size <= 127.
constexpr int kTernaryMaxRanks = 127;

inline bool pactrain_prunable(const LayerInfo& l) {
  return l.role == LayerRole::conv_weight || l.role == LayerRole::fc_weight;
}

// Entries of a tensor of numel values left after pruning (all of a non-prunable one).
int64_t pactrain_kept(const LayerInfo& l, double ratio);

// Values each DDP bucket carries once compacted, in ddp_buckets(layout) order.
std::vector<int64_t> pactrain_compact_floats(const ModelLayout& layout, double ratio,
                                             int64_t cap_bytes = kDdpBucketBytes);

// The indices of the round(ratio x n) lowest scores (ties: the lower index first), sorted.
std::vector<int64_t> lowest_scores(const float* score, int64_t n, double ratio);

// max |x[i]| (0 for n = 0); +Inf when any value is NaN or Inf.
float max_abs(const float* x, int64_t n);
// Stochastic ternarization with scaler s > 0 (|x| <= s): out[i] in {-1, 0, 1},
// P(out[i] = sign(x[i])) = |x[i]| / s, drawn with uniform01(seed, i). s = 0 or Inf: all zero.
void ternarize(const float* x, int64_t n, float s, uint64_t seed, int8_t* out);

}  // namespace prunex
