// Euclidean projections onto the structured sparsity sets (section 3.2): keep the groups
// with the largest Frobenius norms and zero the rest, which minimises ||W - P||_F over the
// set. Ties are broken towards the lower group index. A composition (e.g. filter+channel)
// applies the projections in sequence filter -> channel -> shape, each on the output of
// the previous one, as the paper does. Weights are plain row-major floats {out, in, k}.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"

namespace prunex {

// Indices of the `keep` largest values of `norms`, ties to the lower index, ascending order.
std::vector<int64_t> top_groups(const std::vector<double>& norms, int64_t keep);

// Single-kind projections of w (dims.numel() floats) in place, keeping `keep` groups; each
// clears the pruned entries of the matching vector of `mask` (which must have dims).
void project_filters(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask);
void project_channels(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask);
void project_shapes(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask);

// Projects one weight onto its set (composition in sequence) and returns its mask; an
// unpruned spec returns a dense mask and leaves w untouched.
LayerMask project_layer(float* w, const LayerDims& dims, const LayerSparsity& spec);

// Projects every pruned layer of a model; weights[l] points at layer l's tensor.
ModelMask project_model(float* const* weights, const ModelLayout& layout, const SparsitySpec& spec);

}  // namespace prunex
