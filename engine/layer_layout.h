// Shape-only description of a model: the parameter tensors in the order the framework
// names them, their role, and forward FLOPs. Everything that sizes a payload (compaction,
// plans, simulation) works from this; LibTorch modules must match it name by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prunex {

enum class LayerRole { conv_weight, fc_weight, bias, bn_weight, bn_bias };

const char* layer_role_name(LayerRole r);

struct LayerInfo {
  std::string name;            // e.g. "layer1.0.conv1.weight" (torchvision naming)
  std::vector<int64_t> shape;  // conv: {out, in, kh, kw}; fc: {out, in}; 1-D otherwise
  LayerRole role = LayerRole::conv_weight;
  // Forward FLOPs for one sample (multiply-add = 2 FLOPs) of the operation this tensor
  // belongs to; 0 for tensors whose op is counted on another tensor (e.g. a bias counted
  // with its conv or fc weight).
  double forward_flops = 0;
  // Spatial size of the op's output (conv and fc: 1x1 for fc), kept for compute models.
  int64_t out_h = 1, out_w = 1;

  int64_t numel() const;
  bool is_conv() const { return role == LayerRole::conv_weight; }
};

struct ModelLayout {
  std::string model;
  int classes = 10;
  int input_size = 32;  // square input, H = W
  int input_channels = 3;
  std::vector<LayerInfo> layers;

  int64_t parameters() const;
  double forward_flops() const;  // per sample
  // Per sample: the FLOPs of the convolutions and linear layers (the matrix products), and
  // the output values of the batch norms and of the convolutions (layers/layout_builder.h's
  // shapes; what the simulator's per-layer compute model counts, plan_builder.h).
  double matrix_forward_flops() const;
  int64_t batch_norm_outputs() const;
  int64_t conv_outputs() const;
  int64_t fp32_bytes() const { return parameters() * 4; }
  // Index of a layer by name, or -1.
  int find(const std::string& name) const;
};

}  // namespace prunex
