// LibTorch models against the shape-only layer tables (an independent description of the same
// architectures), forward shapes, and torchvision's initialisation statistics.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "engine/error.h"
#include "workloads/layers/model_zoo.h"
#include "workloads/torch/models.h"

namespace prunex {
namespace {

struct Config {
  int classes, input_size, input_channels;
};

// named_parameters() must be the layer table, in order, name by name and shape by shape.
void expect_matches_layout(const std::string& name, const Config& cfg) {
  SCOPED_TRACE(name + " classes=" + std::to_string(cfg.classes) + " input=" +
               std::to_string(cfg.input_channels) + "x" + std::to_string(cfg.input_size));
  const ModelLayout layout = make_layout(name, cfg.classes, cfg.input_size, cfg.input_channels);
  const ModelHandle model = make_model(name, cfg.classes, cfg.input_channels);
  const auto params = model->named_parameters(/*recurse=*/true);
  ASSERT_EQ(params.size(), layout.layers.size());
  int64_t total = 0;
  for (size_t i = 0; i < layout.layers.size(); ++i) {
    const auto& item = params.items()[i];
    EXPECT_EQ(item.key(), layout.layers[i].name) << "parameter " << i;
    EXPECT_EQ(item.value().sizes().vec(), layout.layers[i].shape) << item.key();
    total += item.value().numel();
  }
  EXPECT_EQ(total, layout.parameters());
}

TEST(TorchModels, NamesAreTheLayerTableNames) {
  auto ours = torch_model_names();
  auto tables = model_names();
  // Every layer table has its LibTorch model, and the other way round.
  EXPECT_EQ(ours, tables);
  EXPECT_EQ(ours.size(), 20u);
}

// AlexNet's three 3x3/2 pools need 63x63 at least; every other model takes CIFAR's 32x32.
int cifar_or_alexnet(const std::string& name, int size) {
  return name == "alexnet" ? 64 : size;
}

TEST(TorchModels, ParametersEqualLayerTableCifarShape) {
  for (const auto& name : torch_model_names())
    expect_matches_layout(name, {10, cifar_or_alexnet(name, 32), 3});
}

TEST(TorchModels, ParametersEqualLayerTableOneChannelOtherClassCount) {
  // Fashion-MNIST shape for the models that take 28x28; VGG's five pools need 32x32,
  // AlexNet's 63x63.
  for (const auto& name : torch_model_names()) {
    const bool vgg = name.rfind("vgg", 0) == 0;
    expect_matches_layout(name, {7, cifar_or_alexnet(name, vgg ? 32 : 28), 1});
  }
}

TEST(TorchModels, PublishedParameterCounts) {
  // torchvision's documented counts at 1000 classes, 3 channels: resnet18 11,689,512;
  // resnet50 25,557,032 (torchvision model docs).
  for (auto [name, count] : std::vector<std::pair<std::string, int64_t>>{{"resnet18", 11689512},
                                                                         {"resnet50", 25557032}}) {
    int64_t total = 0;
    for (const auto& p : make_model(name, 1000, 3)->parameters()) total += p.numel();
    EXPECT_EQ(total, count) << name;
  }
}

TEST(TorchModels, ForwardShapes) {
  torch::NoGradGuard no_grad;
  for (const std::string name : {"small_cnn", "resnet20"}) {
    for (const auto& [c, s] : {std::pair{3, 32}, std::pair{1, 28}}) {
      auto model = make_model(name, 10, c);
      for (bool train : {true, false}) {
        model->train(train);
        const auto out = model->forward(torch::randn({4, c, s, s}));
        EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{4, 10})) << name << " " << c;
        EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
      }
    }
  }
  for (const auto& [c, s] : {std::pair{3, 32}, std::pair{1, 28}}) {
    auto model = make_model("resnet18", 5, c);
    model->eval();
    EXPECT_EQ(model->forward(torch::randn({2, c, s, s})).sizes().vec(),
              (std::vector<int64_t>{2, 5}));
  }
}

TEST(TorchModels, VggRejectsInputsSmallerThan32) {
  auto model = make_model("vgg19", 10, 1);
  model->eval();
  torch::NoGradGuard no_grad;
  EXPECT_THROW(model->forward(torch::randn({1, 1, 28, 28})), UsageError);
  EXPECT_EQ(model->forward(torch::randn({1, 1, 32, 32})).sizes().vec(),
            (std::vector<int64_t>{1, 10}));
}

TEST(TorchModels, BadNamesAndSizesAreUsageErrors) {
  EXPECT_THROW(make_model("resnet19", 10, 3), UsageError);
  EXPECT_THROW(make_model("", 10, 3), UsageError);
  EXPECT_THROW(make_model("resnet18", 0, 3), UsageError);
  EXPECT_THROW(make_model("small_cnn", 10, 0), UsageError);
}

TEST(TorchModels, TorchvisionInitialisation) {
  auto model = make_model("resnet50", 10, 3);
  const auto params = model->named_parameters();
  // Kaiming normal, fan_out, ReLU gain: std = sqrt(2 / (out * kh * kw)).
  const auto w = params["layer4.0.conv2.weight"];  // 512 x 512 x 3 x 3
  const double expected = std::sqrt(2.0 / (512 * 9));
  EXPECT_NEAR(w.std().item<double>(), expected, 0.01 * expected);
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.01 * expected);
  EXPECT_TRUE(params["layer4.0.bn2.weight"].eq(1).all().item<bool>());
  EXPECT_TRUE(params["layer4.0.bn2.bias"].eq(0).all().item<bool>());
  // VGG: Linear weights N(0, 0.01), biases 0.
  auto vgg = make_model("vgg19_bn", 10, 3);
  const auto vp = vgg->named_parameters();
  EXPECT_NEAR(vp["classifier.3.weight"].std().item<double>(), 0.01, 1e-4);
  EXPECT_TRUE(vp["classifier.3.bias"].eq(0).all().item<bool>());
  EXPECT_TRUE(vp["features.0.bias"].eq(0).all().item<bool>());
}

TEST(TorchModels, LayoutOrderViewSharesStorage) {
  auto model = make_model("resnet20", 10, 3);
  const ModelLayout layout = make_layout("resnet20", 10, 32, 3);
  auto tensors = parameters_in_layout_order(*model, layout);
  ASSERT_EQ(tensors.size(), layout.layers.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    EXPECT_EQ(tensors[i].sizes().vec(), layout.layers[i].shape);
  {
    torch::NoGradGuard no_grad;
    tensors[layout.find("fc.bias")].fill_(3.5);
  }
  EXPECT_TRUE(model->named_parameters()["fc.bias"].eq(3.5).all().item<bool>());
  // A layout of another shape is a mismatch, reported (not silently reshaped).
  EXPECT_THROW(parameters_in_layout_order(*model, make_layout("resnet20", 100, 32, 3)),
               std::logic_error);
  EXPECT_THROW(parameters_in_layout_order(*model, make_layout("small_cnn", 10, 32, 3)),
               std::logic_error);
}

}  // namespace
}  // namespace prunex
