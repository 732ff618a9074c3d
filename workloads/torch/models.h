// LibTorch models for live training: the torchvision architectures (resnet18/34/50/101/152,
// wide_resnet50_2/101_2, resnext50_32x4d, resnext101_32x8d, vgg11/13/16/19 and their _bn
// variants, alexnet, densenet121, mobilenet_v2, inception_v3 without its auxiliary
// classifier) with a configurable class count and a stem that takes any number of input
// channels, plus two CPU-sized models (resnet20, small_cnn). Parameter names follow
// torchvision exactly so that named_parameters() lines up, name by name and shape by shape,
// with the shape-only tables of workloads/layers (make_layout).
#pragma once

#include <torch/nn/module.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex {

// A network: forward() maps (N, C, H, W) float images to (N, classes) logits.
class TorchModel : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

using ModelHandle = std::shared_ptr<TorchModel>;

// Names make_model accepts, in a fixed order.
const std::vector<std::string>& torch_model_names();

// Builds a freshly initialised model (torchvision initialisation: Kaiming-normal fan_out for
// convolutions, BN weight 1 / bias 0). Unknown name, classes < 1 or input_channels < 1 ->
// UsageError.
ModelHandle make_model(const std::string& name, int classes, int input_channels);

// The model's parameters in the layout's order, checked name by name and shape by shape
// (a mismatch is a bug: std::logic_error naming the first difference). The tensors share
// storage with the model, so writing into them writes the model.
std::vector<torch::Tensor> parameters_in_layout_order(const torch::nn::Module& model,
                                                      const ModelLayout& layout);

// Builders of one family each (resnet_module.cc, vgg_module.cc, alexnet_module.cc,
// densenet_module.cc, mobilenet_module.cc, inception_module.cc, small_models.cc).
namespace detail {
// A ResNet of resnet_spec() (the torchvision ones and resnet20), a VGG of vgg_config().
ModelHandle make_resnet(const std::string& name, int classes, int input_channels);
ModelHandle make_vgg(const std::string& name, int classes, int input_channels);
ModelHandle make_alexnet(int classes, int input_channels);
ModelHandle make_densenet121(int classes, int input_channels);
ModelHandle make_mobilenet_v2(int classes, int input_channels);
ModelHandle make_inception_v3(int classes, int input_channels);
ModelHandle make_small_cnn(int classes, int input_channels);
}  // namespace detail

}  // namespace prunex
