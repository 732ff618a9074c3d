// DenseNet-121 as torchvision builds it (the layer table's architecture,
// workloads/layers/densenet_layers.cc): `features` = conv0, norm0, relu0, pool0, denseblock1,
// transition1, ..., denseblock4, norm5; ReLU, adaptive average pool and `classifier`. Each
// dense layer maps the concatenation of its block's input and every earlier layer's output
// through BN-ReLU-conv1x1(128)-BN-ReLU-conv3x3(32); drop rate 0 (torchvision's default).
// torchvision's initialisation: Kaiming-normal convolutions (fan in), BN weight 1 / bias 0,
// classifier bias 0.
#include <torch/torch.h>

#include <vector>

#include "engine/error.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

constexpr int kGrowth = 32, kBottleneck = 4 * kGrowth;

struct DenseLayerImpl : nn::Module {
  explicit DenseLayerImpl(int in) {
    norm1 = register_module("norm1", nn::BatchNorm2d(in));
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in, kBottleneck, 1).bias(false)));
    norm2 = register_module("norm2", nn::BatchNorm2d(kBottleneck));
    conv2 = register_module(
        "conv2", nn::Conv2d(nn::Conv2dOptions(kBottleneck, kGrowth, 3).padding(1).bias(false)));
  }
  torch::Tensor forward(const torch::Tensor& concatenated) {
    auto x = conv1(torch::relu(norm1(concatenated)));
    return conv2(torch::relu(norm2(x)));
  }
  nn::BatchNorm2d norm1{nullptr}, norm2{nullptr};
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
};
TORCH_MODULE(DenseLayer);

struct DenseBlockImpl : nn::Module {
  DenseBlockImpl(int layers, int in) {
    for (int i = 0; i < layers; ++i)
      layers_.push_back(
          register_module("denselayer" + std::to_string(i + 1), DenseLayer(in + i * kGrowth)));
  }
  torch::Tensor forward(torch::Tensor x) {
    std::vector<torch::Tensor> features{x};
    for (auto& layer : layers_) features.push_back(layer(torch::cat(features, 1)));
    return torch::cat(features, 1);
  }
  std::vector<DenseLayer> layers_;
};
TORCH_MODULE(DenseBlock);

// Halves the channels (BN, ReLU, 1x1 conv) and the side (2x2/2 average pool).
struct TransitionImpl : nn::Module {
  explicit TransitionImpl(int in) {
    norm = register_module("norm", nn::BatchNorm2d(in));
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(in, in / 2, 1).bias(false)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::avg_pool2d(conv(torch::relu(norm(x))), 2, 2);
  }
  nn::BatchNorm2d norm{nullptr};
  nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Transition);

class DenseNet : public TorchModel {
 public:
  DenseNet(int classes, int in_channels) {
    features_ = register_module("features", nn::Sequential());
    features_->push_back(
        "conv0",
        nn::Conv2d(nn::Conv2dOptions(in_channels, 64, 7).stride(2).padding(3).bias(false)));
    features_->push_back("norm0", nn::BatchNorm2d(64));
    features_->push_back("relu0", nn::ReLU(nn::ReLUOptions(true)));
    features_->push_back("pool0", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
    const std::vector<int> block_layers{6, 12, 24, 16};
    int channels = 64;
    for (size_t s = 0; s < block_layers.size(); ++s) {
      features_->push_back("denseblock" + std::to_string(s + 1),
                           DenseBlock(block_layers[s], channels));
      channels += block_layers[s] * kGrowth;
      if (s + 1 == block_layers.size()) break;
      features_->push_back("transition" + std::to_string(s + 1), Transition(channels));
      channels /= 2;
    }
    features_->push_back("norm5", nn::BatchNorm2d(channels));
    classifier_ = register_module("classifier", nn::Linear(channels, classes));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight);
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      }
    }
    classifier_->bias.zero_();
  }

  torch::Tensor forward(torch::Tensor x) override {
    PRUNEX_USAGE(x.dim() == 4 && x.size(2) >= 29 && x.size(3) >= 29,
                 "densenet121 needs (N, C, H, W) inputs of at least 29x29, got ", x.sizes());
    x = torch::relu(features_->forward(x));
    return classifier_(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }

 private:
  nn::Sequential features_{nullptr};
  nn::Linear classifier_{nullptr};
};

}  // namespace

ModelHandle make_densenet121(int classes, int input_channels) {
  return std::make_shared<DenseNet>(classes, input_channels);
}

}  // namespace prunex::detail
