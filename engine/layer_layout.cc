#include "engine/layer_layout.h"

namespace prunex {

const char* layer_role_name(LayerRole r) {
  switch (r) {
    case LayerRole::conv_weight:
      return "conv";
    case LayerRole::fc_weight:
      return "fc";
    case LayerRole::bias:
      return "bias";
    case LayerRole::bn_weight:
      return "bn_weight";
    case LayerRole::bn_bias:
      return "bn_bias";
  }
  return "?";
}

int64_t LayerInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t ModelLayout::parameters() const {
  int64_t n = 0;
  for (const auto& l : layers) n += l.numel();
  return n;
}

double ModelLayout::forward_flops() const {
  double f = 0;
  for (const auto& l : layers) f += l.forward_flops;
  return f;
}

double ModelLayout::matrix_forward_flops() const {
  double f = 0;
  for (const auto& l : layers)
    if (l.role == LayerRole::conv_weight || l.role == LayerRole::fc_weight) f += l.forward_flops;
  return f;
}

int64_t ModelLayout::batch_norm_outputs() const {
  int64_t n = 0;
  for (const auto& l : layers)
    if (l.role == LayerRole::bn_weight) n += l.shape.at(0) * l.out_h * l.out_w;
  return n;
}

int64_t ModelLayout::conv_outputs() const {
  int64_t n = 0;
  for (const auto& l : layers)
    if (l.role == LayerRole::conv_weight) n += l.shape.at(0) * l.out_h * l.out_w;
  return n;
}

int ModelLayout::find(const std::string& name) const {
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace prunex
