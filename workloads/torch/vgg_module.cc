// VGG-11/13/16/19 and their _bn variants (Simonyan & Zisserman 2015; the configurations are
// the layer table's, workloads/layers/model_families.h) as torchvision builds them: `features`
// holds conv(3x3, pad 1, bias) [+ BN] + ReLU and max-pools, numbered as one nn.Sequential
// (features.0, features.2, ... or features.0/.1 for conv/BN); `classifier` is Linear(512*7*7,
// 4096), ReLU, Dropout, Linear(4096, 4096), ReLU, Dropout, Linear(4096, classes) (classifier.0, .3,
// .6), after an adaptive average pool to 7x7.
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/layers/model_families.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

class Vgg : public TorchModel {
 public:
  Vgg(const std::string& name, int classes, int in_channels) : name_(name) {
    const bool batch_norm = vgg_batch_norm(name);
    nn::Sequential features;
    int in = in_channels;
    for (int v : vgg_config(name)) {
      if (v == kVggMaxPool) {
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
    PRUNEX_USAGE(x.dim() == 4 && x.size(2) >= 32 && x.size(3) >= 32, name_,
                 " needs (N, C, H, W) inputs of at least 32x32, got ", x.sizes());
    x = features_->forward(x);
    x = torch::adaptive_avg_pool2d(x, {7, 7}).flatten(1);
    return classifier_->forward(x);
  }

 private:
  std::string name_;
  nn::Sequential features_{nullptr}, classifier_{nullptr};
};

}  // namespace

ModelHandle make_vgg(const std::string& name, int classes, int input_channels) {
  return std::make_shared<Vgg>(name, classes, input_channels);
}

}  // namespace prunex::detail
