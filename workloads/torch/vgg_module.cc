// VGG-19 and VGG-19-BN (Simonyan & Zisserman 2015, configuration "E") as torchvision builds
// them: `features` holds conv(3x3, pad 1, bias) [+ BN] + ReLU and max-pools, numbered as one
// nn.Sequential (features.0, features.2, ... or features.0/.1 for conv/BN); `classifier` is
// Linear(512*7*7, 4096), ReLU, Dropout, Linear(4096, 4096), ReLU, Dropout, Linear(4096, classes)
// (classifier.0, .3, .6), after an adaptive average pool to 7x7.
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

constexpr int kPool = -1;
// torchvision cfgs["E"].
const std::vector<int> kVgg19Config{64,  64,  kPool, 128, 128,   kPool, 256, 256, 256, 256,  kPool,
                                    512, 512, 512,   512, kPool, 512,   512, 512, 512, kPool};

class Vgg : public TorchModel {
 public:
  Vgg(bool batch_norm, int classes, int in_channels) {
    nn::Sequential features;
    int in = in_channels;
    for (int v : kVgg19Config) {
      if (v == kPool) {
        features->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
        continue;
      }
      features->push_back(nn::Conv2d(nn::Conv2dOptions(in, v, 3).padding(1)));
      if (batch_norm) features->push_back(nn::BatchNorm2d(v));
      features->push_back(nn::ReLU(nn::ReLUOptions(true)));
      in = v;
    }
    features_ = register_module("features", features);
    classifier_ = register_module(
        "classifier",
        nn::Sequential(nn::Linear(512 * 7 * 7, 4096), nn::ReLU(nn::ReLUOptions(true)),
                       nn::Dropout(0.5), nn::Linear(4096, 4096), nn::ReLU(nn::ReLUOptions(true)),
                       nn::Dropout(0.5), nn::Linear(4096, classes)));
    // torchvision VGG._initialize_weights.
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
        c->bias.zero_();
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      } else if (auto* fc = m->as<nn::Linear>()) {
        nn::init::normal_(fc->weight, 0.0, 0.01);
        fc->bias.zero_();
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    // Five 2x2 max-pools: anything smaller than 32x32 pools down to nothing.
    PRUNEX_USAGE(x.dim() == 4 && x.size(2) >= 32 && x.size(3) >= 32,
                 "vgg19 needs (N, C, H, W) inputs of at least 32x32, got ", x.sizes());
    x = features_->forward(x);
    x = torch::adaptive_avg_pool2d(x, {7, 7}).flatten(1);
    return classifier_->forward(x);
  }

 private:
  nn::Sequential features_{nullptr}, classifier_{nullptr};
};

}  // namespace

ModelHandle make_vgg19(bool batch_norm, int classes, int input_channels) {
  return std::make_shared<Vgg>(batch_norm, classes, input_channels);
}

}  // namespace prunex::detail
