// The CPU-sized model small_cnn, the model factory, and the layout-ordered parameter view.
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/torch/models.h"

namespace prunex {
namespace detail {
namespace {

namespace nn = torch::nn;

// Four 3x3 conv (pad 1) layers of 32, 32, 64, 64 channels, each followed by BN and ReLU, a
// 2x2 max-pool after the second and the fourth, global average pool, fc. `features` is one
// nn.Sequential, numbered as the layer table (workloads/layers/model_zoo.h) documents:
// features.0/.1 conv/BN, .3/.4, .7/.8, .10/.11; pools at 6 and 13.
class SmallCnn : public TorchModel {
 public:
  SmallCnn(int classes, int in_channels) {
    nn::Sequential features;
    int in = in_channels;
    for (int i = 0; i < 4; ++i) {
      const int out = i < 2 ? 32 : 64;
      features->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
      features->push_back(nn::BatchNorm2d(out));
      features->push_back(nn::ReLU(nn::ReLUOptions(true)));
      if (i == 1 || i == 3) features->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
      in = out;
    }
    features_ = register_module("features", features);
    fc_ = register_module("fc", nn::Linear(in, classes));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = features_->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_(x);
  }

 private:
  nn::Sequential features_{nullptr};
  nn::Linear fc_{nullptr};
};

}  // namespace

ModelHandle make_small_cnn(int classes, int input_channels) {
  return std::make_shared<SmallCnn>(classes, input_channels);
}

}  // namespace detail

const std::vector<std::string>& torch_model_names() {
  static const std::vector<std::string> names{
      "resnet18",         "resnet34",        "resnet50",         "resnet101",
      "resnet152",        "wide_resnet50_2", "wide_resnet101_2", "resnext50_32x4d",
      "resnext101_32x8d", "vgg11",           "vgg11_bn",         "vgg13",
      "vgg13_bn",         "vgg16",           "vgg16_bn",         "vgg19",
      "vgg19_bn",         "alexnet",         "densenet121",      "mobilenet_v2",
      "inception_v3",     "resnet20",        "small_cnn"};
  return names;
}

ModelHandle make_model(const std::string& name, int classes, int input_channels) {
  PRUNEX_USAGE(classes >= 1, "model '", name, "': classes must be >= 1, got ", classes);
  PRUNEX_USAGE(input_channels >= 1, "model '", name, "': input channels must be >= 1, got ",
               input_channels);
  const auto& names = torch_model_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    if (name == "small_cnn") return detail::make_small_cnn(classes, input_channels);
    if (name.rfind("vgg", 0) == 0) return detail::make_vgg(name, classes, input_channels);
    if (name == "alexnet") return detail::make_alexnet(classes, input_channels);
    if (name == "densenet121") return detail::make_densenet121(classes, input_channels);
    if (name == "mobilenet_v2") return detail::make_mobilenet_v2(classes, input_channels);
    if (name == "inception_v3") return detail::make_inception_v3(classes, input_channels);
    return detail::make_resnet(name, classes, input_channels);
  }
  std::string known;
  for (const auto& n : torch_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown model '" + name + "' (known: " + known + ")");
}

std::vector<torch::Tensor> parameters_in_layout_order(const torch::nn::Module& model,
                                                      const ModelLayout& layout) {
  const auto params = model.named_parameters(/*recurse=*/true);
  PRUNEX_CHECK_EQ(params.size(), layout.layers.size(), "(parameters of the model vs layers of ",
                  layout.model, "'s layout)");
  std::vector<torch::Tensor> out;
  out.reserve(layout.layers.size());
  for (const auto& layer : layout.layers) {
    const torch::Tensor* t = params.find(layer.name);
    PRUNEX_CHECK(t != nullptr, "layout layer ", layer.name, " is not a parameter of the model");
    PRUNEX_CHECK(t->sizes().vec() == layer.shape, "parameter ", layer.name, " has shape ",
                 t->sizes(), " but the layout says another");
    out.push_back(*t);
  }
  return out;
}

}  // namespace prunex
