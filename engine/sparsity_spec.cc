#include "engine/sparsity_spec.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "engine/error.h"

namespace prunex {

namespace {

struct KindName {
  SparsityKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {{kFilter, "filter"}, {kChannel, "channel"}, {kShape, "shape"}};

// Groups of one kind in a layer.
int64_t group_count(const LayerDims& d, SparsityKind kind) {
  switch (kind) {
    case kFilter:
      return d.out;
    case kChannel:
      return d.in;
    case kShape:
      return d.in * d.k;
  }
  return 0;
}

bool is_weight(const LayerInfo& l) {
  return l.role == LayerRole::conv_weight || l.role == LayerRole::fc_weight;
}

}  // namespace

SparsityKinds parse_sparsity_kinds(const std::string& text) {
  if (text == "none") return 0;
  SparsityKinds kinds = 0;
  std::stringstream ss(text);
  std::string part;
  int parts = 0;
  while (std::getline(ss, part, '+')) {
    ++parts;
    SparsityKinds k = 0;
    for (const auto& kn : kKindNames)
      if (part == kn.name) k = kn.kind;
    PRUNEX_USAGE(k != 0, "unknown sparsity kind '", part, "' in '", text,
                 "' (use filter, channel, shape, a+b, or none)");
    PRUNEX_USAGE((kinds & k) == 0, "sparsity kind '", part, "' repeated in '", text, "'");
    kinds |= k;
  }
  PRUNEX_USAGE(parts > 0 && text.back() != '+', "empty sparsity kind in '", text, "'");
  return kinds;
}

std::string sparsity_kinds_name(SparsityKinds kinds) {
  if (kinds == 0) return "none";
  std::string out;
  for (const auto& kn : kKindNames)
    if (kinds & kn.kind) out += (out.empty() ? "" : "+") + std::string(kn.name);
  return out;
}

KeepRate KeepRate::of_fraction(double f) {
  PRUNEX_USAGE(std::isfinite(f) && f > 0.0 && f <= 1.0, "keep rate ", f, " is outside (0, 1]");
  KeepRate r;
  r.fraction = f;
  return r;
}

KeepRate KeepRate::of_count(int64_t n) {
  PRUNEX_USAGE(n >= 1, "keep count ", n, " must be at least 1");
  KeepRate r;
  r.is_count = true;
  r.count = n;
  return r;
}

KeepRate KeepRate::parse(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  PRUNEX_USAGE(!text.empty() && end == text.c_str() + text.size() && std::isfinite(v),
               "keep rate '", text, "' is not a number");
  if (v > 0.0 && v <= 1.0) return of_fraction(v);
  PRUNEX_USAGE(v > 1.0 && v == std::floor(v) && v < 9.0e15, "keep rate '", text,
               "' must be a fraction in (0, 1] or a whole count of groups");
  return of_count(static_cast<int64_t>(v));
}

int64_t KeepRate::kept(int64_t groups) const {
  if (is_count) {
    PRUNEX_USAGE(count <= groups, "keep count ", count, " exceeds the ", groups,
                 " groups of a layer");
    return count;
  }
  const auto k = static_cast<int64_t>(std::floor(fraction * double(groups) + 0.5));
  return std::max<int64_t>(1, std::min(k, groups));
}

std::string KeepRate::str() const {
  std::ostringstream os;
  if (is_count)
    os << count;
  else
    os << fraction;
  return os.str();
}

LayerDims layer_dims(const LayerInfo& layer) {
  LayerDims d;
  const auto& s = layer.shape;
  if (s.size() >= 2) {
    d.out = s[0];
    d.in = s[1];
    for (size_t i = 2; i < s.size(); ++i) d.k *= s[i];
  } else {
    d.out = layer.numel();
  }
  return d;
}

SparsitySpec SparsitySpec::build(const ModelLayout& layout, SparsityKinds kinds, KeepRate global,
                                 const std::map<std::string, KeepRate>& overrides,
                                 const std::vector<std::string>& only) {
  SparsitySpec spec;
  spec.kinds = kinds;
  spec.global = global;
  spec.layers.resize(layout.layers.size());

  std::vector<bool> pruned(layout.layers.size(), false);
  if (only.empty()) {
    bool first_conv = true;
    for (size_t i = 0; i < layout.layers.size(); ++i) {
      if (!layout.layers[i].is_conv()) continue;
      pruned[i] = !first_conv;  // the stem sees raw pixels: too few channels to prune
      first_conv = false;
    }
  } else {
    for (const auto& name : only) {
      const int i = layout.find(name);
      PRUNEX_USAGE(i >= 0, "no layer named '", name, "' in ", layout.model);
      PRUNEX_USAGE(is_weight(layout.layers[i]), "layer '", name,
                   "' is not a conv or fc weight and cannot be pruned");
      pruned[i] = true;
    }
  }
  for (const auto& [name, rate] : overrides) {
    const int i = layout.find(name);
    PRUNEX_USAGE(i >= 0, "no layer named '", name, "' in ", layout.model);
    PRUNEX_USAGE(pruned[i], "keep rate given for layer '", name, "', which is not pruned");
  }

  for (size_t i = 0; i < layout.layers.size(); ++i) {
    if (!pruned[i] || kinds == 0) continue;
    LayerSparsity& ls = spec.layers[i];
    ls.kinds = kinds;
    auto it = overrides.find(layout.layers[i].name);
    ls.keep = it == overrides.end() ? global : it->second;
    const LayerDims d = layer_dims(layout.layers[i]);
    for (const auto& kn : kKindNames) {
      if (!(kinds & kn.kind)) continue;
      const int64_t g = group_count(d, kn.kind);
      PRUNEX_USAGE(!ls.keep.is_count || ls.keep.count <= g, "keep count ", ls.keep.count,
                   " exceeds the ", g, " ", kn.name, " groups of layer ", layout.layers[i].name);
    }
  }
  return spec;
}

int SparsitySpec::pruned_layers() const {
  int n = 0;
  for (const auto& l : layers) n += l.pruned() ? 1 : 0;
  return n;
}

}  // namespace prunex
