// cgx --adaptive-bits: per-layer bits between 2 and 4, chosen on rank 0 and broadcast.
// CGX's paper describes layer-wise bit widths picked by clustering; the published torch_cgx
// code (IST-DASLab/torch_cgx at fa9116c) has no such policy, so this one is ours, as the
// project's issue states it:
// - Features per compressed layer: its size and the L2 norm of the 100 largest |entries| of a
//   decayed accumulator of its averaged gradient (acc = 0.9 acc + g every step).
// - k-means (k = 3, or fewer distinct layers) over (log10 size, log10 norm), each rescaled to
//   [0, 1]; centroids start at the layers of lowest, median and highest norm; Lloyd's
//   iterations until no assignment changes (at most 100).
// - Clusters ordered by their centroid's norm coordinate get 2, 3 and 4 bits: the layers whose
//   gradients carry the most mass keep the most precision. With fewer than 3 clusters the top
//   ones get the most bits (2 clusters: 3 and 4; 1: 4).
#pragma once

#include <vector>

namespace prunex {

constexpr double kCgxAccumulatorDecay = 0.9;
constexpr int kCgxTopEntries = 100;

// sizes[i], norms[i] of the compressed layers; returns bits per layer (2..4).
std::vector<int> cgx_adaptive_bits(const std::vector<double>& sizes,
                                   const std::vector<double>& norms);

// The L2 norm of the k largest |x| (all of them when n <= k).
double top_k_norm(const float* x, long n, int k);

}  // namespace prunex
