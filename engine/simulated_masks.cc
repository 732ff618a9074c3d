#include "engine/simulated_masks.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/error.h"

namespace prunex {
namespace {

// Keeps the first n(G) groups of every kind the layer is pruned by.
void keep_first(LayerMask& m, SparsityKinds kinds, const std::function<int64_t(int64_t)>& n) {
  auto keep = [&](std::vector<uint8_t>& v) {
    const int64_t k = std::clamp<int64_t>(n(static_cast<int64_t>(v.size())), 1, v.size());
    std::fill(v.begin(), v.end(), uint8_t(0));
    std::fill(v.begin(), v.begin() + k, uint8_t(1));
  };
  if (kinds & kFilter) keep(m.keep_out);
  if (kinds & kChannel) keep(m.keep_in);
  if (kinds & kShape) keep(m.keep_shape);
  m.normalise();
}

int kind_count(SparsityKinds kinds) {
  return ((kinds & kFilter) ? 1 : 0) + ((kinds & kChannel) ? 1 : 0) + ((kinds & kShape) ? 1 : 0);
}

}  // namespace

int64_t union_groups(int64_t groups, int64_t kept, double growth, int nodes) {
  PRUNEX_USAGE(growth >= 0 && growth <= 1, "union growth must be in [0, 1] (got ", growth, ")");
  const double others = 1.0 - std::pow(1.0 - growth, nodes - 1);
  const auto extra = static_cast<int64_t>(std::floor((groups - kept) * others + 0.5));
  return std::min(groups, kept + extra);
}

ModelMask synthetic_union_mask(const ModelLayout& layout, const SparsitySpec& spec, double growth,
                               int nodes) {
  PRUNEX_USAGE(growth >= 0 && growth <= 1, "union growth must be in [0, 1] (got ", growth, ")");
  ModelMask mask(layout, spec);
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const LayerSparsity& s = spec.layers[l];
    if (!s.pruned()) continue;
    keep_first(mask[l], s.kinds,
               [&](int64_t g) { return union_groups(g, s.keep.kept(g), growth, nodes); });
  }
  return mask;
}

ModelMask mask_from_densities(const ModelLayout& layout, const SparsitySpec& spec,
                              const std::map<std::string, double>& density,
                              const std::string& origin) {
  for (const auto& [name, d] : density) {
    const int l = layout.find(name);
    PRUNEX_USAGE(l >= 0, origin, ": layer ", name, " is not in model ", layout.model);
    PRUNEX_USAGE(spec.layers[l].pruned(), origin, ": layer ", name,
                 " is not pruned under sparsity ", sparsity_kinds_name(spec.kinds));
    PRUNEX_USAGE(d > 0 && d <= 1, origin, ": density of ", name, " must be in (0, 1] (got ", d,
                 ")");
  }
  ModelMask mask(layout, spec);
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const LayerSparsity& s = spec.layers[l];
    if (!s.pruned()) continue;
    const auto it = density.find(layout.layers[l].name);
    PRUNEX_USAGE(it != density.end(), origin, ": no density for pruned layer ",
                 layout.layers[l].name, " (a different model or sparsity?)");
    const double f = std::pow(it->second, 1.0 / kind_count(s.kinds));
    keep_first(mask[l], s.kinds,
               [&](int64_t g) { return static_cast<int64_t>(std::floor(f * g + 0.5)); });
  }
  return mask;
}

}  // namespace prunex
