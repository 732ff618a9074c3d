// AlexNet as torchvision builds it (the layer table's architecture,
// workloads/layers/alexnet_layers.cc): `features` = conv 11x11/4 pad 2 (64), ReLU, max-pool
// 3/2, conv 5x5 pad 2 (192), ReLU, pool, conv 3x3 pad 1 (384, 256, 256) each with ReLU, pool;
// adaptive average pool to 6x6; `classifier` = Dropout, Linear(9216, 4096), ReLU, Dropout,
// Linear(4096, 4096), ReLU, Linear(4096, classes). PyTorch's default initialisation
// (torchvision's AlexNet sets none of its own).
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

class AlexNet : public TorchModel {
 public:
  AlexNet(int classes, int in_channels) {
    auto relu = [] { return nn::ReLU(nn::ReLUOptions(true)); };
    auto pool = [] { return nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2)); };
    features_ = register_module(
        "features",
        nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in_channels, 64, 11).stride(4).padding(2)),
                       relu(), pool(), nn::Conv2d(nn::Conv2dOptions(64, 192, 5).padding(2)), relu(),
                       pool(), nn::Conv2d(nn::Conv2dOptions(192, 384, 3).padding(1)), relu(),
                       nn::Conv2d(nn::Conv2dOptions(384, 256, 3).padding(1)), relu(),
                       nn::Conv2d(nn::Conv2dOptions(256, 256, 3).padding(1)), relu(), pool()));
    classifier_ = register_module(
        "classifier",
        nn::Sequential(nn::Dropout(0.5), nn::Linear(256 * 6 * 6, 4096), relu(), nn::Dropout(0.5),
                       nn::Linear(4096, 4096), relu(), nn::Linear(4096, classes)));
  }

  torch::Tensor forward(torch::Tensor x) override {
    PRUNEX_USAGE(x.dim() == 4 && x.size(2) >= 63 && x.size(3) >= 63,
                 "alexnet needs (N, C, H, W) inputs of at least 63x63, got ", x.sizes());
    x = features_->forward(x);
    x = torch::adaptive_avg_pool2d(x, {6, 6}).flatten(1);
    return classifier_->forward(x);
  }

 private:
  nn::Sequential features_{nullptr}, classifier_{nullptr};
};

}  // namespace

ModelHandle make_alexnet(int classes, int input_channels) {
  return std::make_shared<AlexNet>(classes, input_channels);
}

}  // namespace prunex::detail
