// MobileNetV2 as torchvision builds it (the layer table's architecture,
// workloads/layers/mobilenet_layers.cc): `features.0` conv 3x3/2 + BN + ReLU6, 17 inverted
// residual blocks (expansion 1x1 + BN + ReLU6 unless t = 1, depthwise 3x3 + BN + ReLU6, 1x1
// projection + BN, a residual add when stride 1 keeps the channels), `features.18` 1x1 to 1280
// + BN + ReLU6; adaptive average pool, `classifier` = Dropout(0.2), Linear(1280, classes).
// torchvision's initialisation: Kaiming-normal convolutions (fan out), BN weight 1 / bias 0,
// classifier weight N(0, 0.01) and bias 0.
#include <torch/torch.h>

#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

// torchvision's Conv2dNormActivation: conv (no bias) "0", BN "1", then ReLU6.
struct ConvNormActImpl : nn::Module {
  ConvNormActImpl(int in, int out, int kernel, int stride, int groups = 1) {
    conv = register_module("0", nn::Conv2d(nn::Conv2dOptions(in, out, kernel)
                                               .stride(stride)
                                               .padding((kernel - 1) / 2)
                                               .groups(groups)
                                               .bias(false)));
    norm = register_module("1", nn::BatchNorm2d(out));
  }
  torch::Tensor forward(const torch::Tensor& x) { return torch::clamp(norm(conv(x)), 0.0, 6.0); }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d norm{nullptr};
};
TORCH_MODULE(ConvNormAct);

struct InvertedResidualImpl : nn::Module {
  InvertedResidualImpl(int in, int out, int stride, int expand)
      : residual(stride == 1 && in == out) {
    const int hidden = in * expand;
    nn::Sequential layers;
    if (expand != 1) layers->push_back(ConvNormAct(in, hidden, 1, 1));
    layers->push_back(ConvNormAct(hidden, hidden, 3, stride, hidden));
    layers->push_back(nn::Conv2d(nn::Conv2dOptions(hidden, out, 1).bias(false)));
    layers->push_back(nn::BatchNorm2d(out));
    conv = register_module("conv", layers);
  }
  torch::Tensor forward(torch::Tensor x) {
    return residual ? x + conv->forward(x) : conv->forward(x);
  }
  bool residual;
  nn::Sequential conv{nullptr};
};
TORCH_MODULE(InvertedResidual);

class MobileNetV2 : public TorchModel {
 public:
  MobileNetV2(int classes, int in_channels) {
    struct Row {
      int expand, channels, repeats, stride;
    };
    const Row rows[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                        {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    nn::Sequential features(ConvNormAct(in_channels, 32, 3, 2));
    int channels = 32;
    for (const Row& r : rows)
      for (int i = 0; i < r.repeats; ++i) {
        features->push_back(
            InvertedResidual(channels, r.channels, i == 0 ? r.stride : 1, r.expand));
        channels = r.channels;
      }
    features->push_back(ConvNormAct(channels, 1280, 1, 1));
    features_ = register_module("features", features);
    classifier_ =
        register_module("classifier", nn::Sequential(nn::Dropout(0.2), nn::Linear(1280, classes)));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut);
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      } else if (auto* fc = m->as<nn::Linear>()) {
        fc->weight.normal_(0.0, 0.01);
        fc->bias.zero_();
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = features_->forward(x);
    return classifier_->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }

 private:
  nn::Sequential features_{nullptr}, classifier_{nullptr};
};

}  // namespace

ModelHandle make_mobilenet_v2(int classes, int input_channels) {
  return std::make_shared<MobileNetV2>(classes, input_channels);
}

}  // namespace prunex::detail
