// Builds a ModelLayout by walking a network's forward pass: it tracks the activation shape
// (channels x H x W) so every tensor gets its shape, output size and forward FLOPs.
//
// FLOP conventions (one sample, multiply-add = 2 FLOPs):
//   conv   2 * Cout * (Cin/groups) * kh * kw * Hout * Wout, on the conv weight;
//   fc     2 * in * out, on the fc weight;
//   bias   one add per output element, folded into its conv/fc weight (the bias row gets 0);
//   BN     4 per element ((x - mean) * inv_std * gamma + beta), on the BN weight (bias 0);
//   ReLU, pooling, residual adds: not counted (no parameter to carry them; < 1% of a conv).
#pragma once

#include <string>

#include "engine/layer_layout.h"

namespace prunex {

struct ActivationShape {
  int64_t channels = 0, h = 0, w = 0;
  bool operator==(const ActivationShape& o) const {
    return channels == o.channels && h == o.h && w == o.w;
  }
};

class LayoutBuilder {
 public:
  // Appends to `out`; the input activation is input_channels x input_size x input_size.
  explicit LayoutBuilder(ModelLayout& out);

  // nn.Conv2d registered as `module` (square kernel): "<module>.weight" [+ "<module>.bias"];
  // groups > 1: a grouped convolution, weight [out, in / groups, k, k] (ResNeXt). Structured
  // sparsity sees it as any conv weight: a "channel" is a column of in / groups, the same
  // input position in every group.
  void conv(const std::string& module, int64_t out_channels, int kernel, int stride, int pad,
            bool bias, int groups = 1);
  // A kh x kw kernel with its own padding per side (Inception's 1x7 and 7x1), stride 1.
  void conv_rect(const std::string& module, int64_t out_channels, int kh, int kw, int pad_h,
                 int pad_w);
  // nn.BatchNorm2d over the current channels: "<module>.weight", "<module>.bias".
  void batch_norm(const std::string& module);
  // Max/avg pooling (PyTorch floor mode); no parameters, changes H and W only. `module`
  // names it in the error when the input is too small.
  void pool(const std::string& module, int kernel, int stride, int pad);
  // nn.AdaptiveAvgPool2d((size, size)): output is size x size whatever the input.
  void adaptive_pool(int64_t size);
  // nn.Linear on the flattened activation: "<module>.weight" [+ "<module>.bias"].
  void fc(const std::string& module, int64_t out_features, bool bias);

  const ActivationShape& shape() const { return shape_; }
  // For branches (a residual shortcut starts again from the block's input).
  void set_shape(const ActivationShape& s) { shape_ = s; }
  // torch.cat along channels of branches that all ended at the current H x W: the
  // activation becomes `channels` wide (DenseNet, Inception).
  void concat(int64_t channels) { shape_.channels = channels; }

 private:
  int64_t out_size(const std::string& module, int64_t in, int kernel, int stride, int pad) const;
  void add_conv(const std::string& module, int64_t out_channels, int kh, int kw, int stride,
                int pad_h, int pad_w, bool bias, int groups);

  ModelLayout& out_;
  ActivationShape shape_;
};

}  // namespace prunex
