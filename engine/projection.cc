#include "engine/projection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/error.h"

namespace prunex {

std::vector<int64_t> top_groups(const std::vector<double>& norms, int64_t keep) {
  const auto n = static_cast<int64_t>(norms.size());
  PRUNEX_CHECK(keep >= 0 && keep <= n, "keep ", keep, " of ", n, " groups");
  // NaN would break the ordering; such a group ranks below every number.
  auto key = [&](int64_t i) {
    return std::isnan(norms[i]) ? -std::numeric_limits<double>::infinity() : norms[i];
  };
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::nth_element(idx.begin(), idx.begin() + keep, idx.end(), [&](int64_t a, int64_t b) {
    const double ka = key(a), kb = key(b);
    return ka > kb || (ka == kb && a < b);
  });
  idx.resize(keep);
  std::sort(idx.begin(), idx.end());
  return idx;
}

LayerMask project_layer(float* w, const LayerDims& dims, const LayerSparsity& spec) {
  LayerMask mask = LayerMask::dense(dims);
  if (!spec.pruned()) return mask;
  // Sequence fixed by the paper's composition rule: filter -> channel -> shape.
  if (spec.kinds & kFilter) project_filters(w, dims, spec.keep.kept(dims.out), mask);
  if (spec.kinds & kChannel) project_channels(w, dims, spec.keep.kept(dims.in), mask);
  if (spec.kinds & kShape) project_shapes(w, dims, spec.keep.kept(dims.in * dims.k), mask);
  return mask;
}

ModelMask project_model(float* const* weights, const ModelLayout& layout,
                        const SparsitySpec& spec) {
  ModelMask mask(layout, spec);
  for (size_t l = 0; l < layout.layers.size(); ++l)
    if (spec.layers[l].pruned())
      mask[l] = project_layer(weights[l], layer_dims(layout.layers[l]), spec.layers[l]);
  return mask;
}

}  // namespace prunex
