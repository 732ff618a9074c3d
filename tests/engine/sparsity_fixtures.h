// Small hand-built layouts and random tensors shared by the sparsity tests.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex::testing {

inline LayerInfo conv(const std::string& name, int64_t o, int64_t i, int64_t kh, int64_t kw) {
  LayerInfo l;
  l.name = name;
  l.shape = {o, i, kh, kw};
  l.role = LayerRole::conv_weight;
  return l;
}

inline LayerInfo fc(const std::string& name, int64_t o, int64_t i) {
  LayerInfo l;
  l.name = name;
  l.shape = {o, i};
  l.role = LayerRole::fc_weight;
  return l;
}

inline LayerInfo vec(const std::string& name, int64_t n, LayerRole role) {
  LayerInfo l;
  l.name = name;
  l.shape = {n};
  l.role = role;
  return l;
}

// conv stem, BN, two convs (3x3 and 1x1), an fc with bias.
inline ModelLayout tiny_layout() {
  ModelLayout m;
  m.model = "tiny";
  m.layers = {conv("conv1.weight", 8, 3, 3, 3),          vec("bn1.weight", 8, LayerRole::bn_weight),
              vec("bn1.bias", 8, LayerRole::bn_bias),    conv("layer1.conv1.weight", 16, 8, 3, 3),
              conv("layer1.conv2.weight", 12, 16, 1, 1), fc("fc.weight", 5, 12),
              vec("fc.bias", 5, LayerRole::bias)};
  return m;
}

inline std::vector<float> random_tensor(int64_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace prunex::testing
