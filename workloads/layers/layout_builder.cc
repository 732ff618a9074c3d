#include "workloads/layers/layout_builder.h"

#include "engine/error.h"

namespace prunex {

LayoutBuilder::LayoutBuilder(ModelLayout& out)
    : out_(out), shape_{out.input_channels, out.input_size, out.input_size} {}

int64_t LayoutBuilder::out_size(const std::string& module, int64_t in, int kernel, int stride,
                                int pad) const {
  const int64_t padded = in + 2 * pad;
  PRUNEX_USAGE(padded >= kernel, "input ", out_.input_size, "x", out_.input_size,
               " is too small for ", out_.model, ": ", module, " would get an input side of ", in,
               " for a window of ", kernel);
  return (padded - kernel) / stride + 1;
}

void LayoutBuilder::conv(const std::string& module, int64_t out_channels, int kernel, int stride,
                         int pad, bool bias, int groups) {
  add_conv(module, out_channels, kernel, kernel, stride, pad, pad, bias, groups);
}

void LayoutBuilder::conv_rect(const std::string& module, int64_t out_channels, int kh, int kw,
                              int pad_h, int pad_w) {
  add_conv(module, out_channels, kh, kw, 1, pad_h, pad_w, false, 1);
}

void LayoutBuilder::add_conv(const std::string& module, int64_t out_channels, int kh, int kw,
                             int stride, int pad_h, int pad_w, bool bias, int groups) {
  PRUNEX_CHECK(groups >= 1 && shape_.channels % groups == 0 && out_channels % groups == 0, module,
               ": ", groups, " groups do not divide its channels");
  const int64_t in_per_group = shape_.channels / groups;
  const int64_t h = out_size(module, shape_.h, kh, stride, pad_h);
  const int64_t w = out_size(module, shape_.w, kw, stride, pad_w);
  const double outputs = static_cast<double>(out_channels) * h * w;
  LayerInfo weight;
  weight.name = module + ".weight";
  weight.shape = {out_channels, in_per_group, kh, kw};
  weight.role = LayerRole::conv_weight;
  weight.forward_flops = 2.0 * outputs * in_per_group * kh * kw + (bias ? outputs : 0);
  weight.out_h = h;
  weight.out_w = w;
  out_.layers.push_back(weight);
  if (bias) {
    LayerInfo b;
    b.name = module + ".bias";
    b.shape = {out_channels};
    b.role = LayerRole::bias;
    b.out_h = h;
    b.out_w = w;
    out_.layers.push_back(b);
  }
  shape_ = {out_channels, h, w};
}

void LayoutBuilder::batch_norm(const std::string& module) {
  LayerInfo weight;
  weight.name = module + ".weight";
  weight.shape = {shape_.channels};
  weight.role = LayerRole::bn_weight;
  weight.forward_flops = 4.0 * shape_.channels * shape_.h * shape_.w;
  weight.out_h = shape_.h;
  weight.out_w = shape_.w;
  LayerInfo bias = weight;
  bias.name = module + ".bias";
  bias.role = LayerRole::bn_bias;
  bias.forward_flops = 0;
  out_.layers.push_back(weight);
  out_.layers.push_back(bias);
}

void LayoutBuilder::pool(const std::string& module, int kernel, int stride, int pad) {
  const int64_t h = out_size(module, shape_.h, kernel, stride, pad);
  const int64_t w = out_size(module, shape_.w, kernel, stride, pad);
  shape_ = {shape_.channels, h, w};
}

void LayoutBuilder::adaptive_pool(int64_t size) {
  shape_ = {shape_.channels, size, size};
}

void LayoutBuilder::fc(const std::string& module, int64_t out_features, bool bias) {
  const int64_t in_features = shape_.channels * shape_.h * shape_.w;
  LayerInfo weight;
  weight.name = module + ".weight";
  weight.shape = {out_features, in_features};
  weight.role = LayerRole::fc_weight;
  weight.forward_flops =
      2.0 * static_cast<double>(in_features) * out_features + (bias ? out_features : 0);
  out_.layers.push_back(weight);
  if (bias) {
    LayerInfo b;
    b.name = module + ".bias";
    b.shape = {out_features};
    b.role = LayerRole::bias;
    out_.layers.push_back(b);
  }
  shape_ = {out_features, 1, 1};
}

}  // namespace prunex
