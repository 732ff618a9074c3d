// Which structured sparsity each layer is constrained to (the sets S^l of the paper) and how
// many groups each projection keeps. Built once from a ModelLayout; the projection and the
// masks read it per layer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex {

// Bitmask of group kinds. filter: output filters (rows of the GEMM view); channel: input
// channels; shape: (input channel, kernel position) columns of the GEMM view.
enum SparsityKind : unsigned { kFilter = 1u, kChannel = 2u, kShape = 4u };
using SparsityKinds = unsigned;

// "filter", "channel", "shape" joined by '+' (any order, no repeats); "none" -> 0.
// Anything else is a UsageError.
SparsityKinds parse_sparsity_kinds(const std::string& text);
// Canonical name: "filter+channel+shape" order; 0 -> "none".
std::string sparsity_kinds_name(SparsityKinds kinds);

// A keep rate: a fraction in (0, 1] of the groups, or an absolute count >= 1.
struct KeepRate {
  bool is_count = false;
  double fraction = 1.0;  // when !is_count
  int64_t count = 0;      // when is_count

  static KeepRate of_fraction(double f);  // UsageError outside (0, 1]
  static KeepRate of_count(int64_t n);    // UsageError if n < 1
  // A number in (0, 1] -> fraction ("1" keeps everything); an integer > 1 -> count
  // ("32"). UsageError on anything else.
  static KeepRate parse(const std::string& text);

  // Groups kept out of `groups`: a count as given (UsageError if > groups); a fraction
  // rounded half up, floor(f * groups + 0.5), and at least 1.
  int64_t kept(int64_t groups) const;
  std::string str() const;
};

// The constraint on one layer. kinds == 0: the layer is not pruned (carried dense).
struct LayerSparsity {
  SparsityKinds kinds = 0;
  KeepRate keep;
  bool pruned() const { return kinds != 0; }
};

// Group counts of a weight viewed as {out, in, k = kh*kw} (fc: k = 1; 1-D: {n, 1, 1}).
struct LayerDims {
  int64_t out = 1, in = 1, k = 1;
  int64_t numel() const { return out * in * k; }
};
LayerDims layer_dims(const LayerInfo& layer);

struct SparsitySpec {
  SparsityKinds kinds = 0;
  KeepRate global;
  std::vector<LayerSparsity> layers;  // one per layout layer, same order

  // Default pruned set: every conv weight except the first conv of the layout. `only`, if
  // non-empty, replaces that set by the named layers (conv or fc weights). `overrides` gives
  // per-layer keep rates by layer name. Unknown names, non-weight layers, and counts larger
  // than a pruned layer's group count (for any of its kinds) are UsageErrors.
  static SparsitySpec build(const ModelLayout& layout, SparsityKinds kinds, KeepRate global,
                            const std::map<std::string, KeepRate>& overrides = {},
                            const std::vector<std::string>& only = {});

  int pruned_layers() const;
};

}  // namespace prunex
