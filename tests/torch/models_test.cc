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
  EXPECT_EQ(ours.size(), 23u);
}

// The smallest input each model takes where CIFAR's 32x32 (or Fashion-MNIST's 28x28) is too
// small: AlexNet's three 3x3/2 pools need 63x63, Inception-v3's stem and reductions 75x75,
// DenseNet's stem and three 2x2 transitions 29x29, VGG's five 2x2 pools 32x32.
int input_for(const std::string& name, int size) {
  if (name == "alexnet") return 64;
  if (name == "inception_v3") return 75;
  if (name == "densenet121" || name.rfind("vgg", 0) == 0) return std::max(size, 32);
  return size;
}

TEST(TorchModels, ParametersEqualLayerTableCifarShape) {
  for (const auto& name : torch_model_names())
    expect_matches_layout(name, {10, input_for(name, 32), 3});
}

// The channels and classes reach a model through its family's first convolution and
// classifier (workloads/torch/*_module.cc), the same code for every depth and width: one
// model of each family and block kind checks them, beside every model at the shape above.
TEST(TorchModels, ParametersEqualLayerTableOneChannelOtherClassCount) {
  for (const std::string name :
       {"small_cnn", "resnet20", "resnet18", "resnet50", "resnext50_32x4d", "vgg11", "vgg11_bn",
        "alexnet", "densenet121", "mobilenet_v2", "inception_v3"})
    expect_matches_layout(name, {7, input_for(name, 28), 1});
}

TEST(TorchModels, PublishedParameterCounts) {
  // torchvision's documented counts at 1000 classes, 3 channels (torchvision model docs):
  // resnet18 11,689,512; resnet50 25,557,032; densenet121 7,978,856; mobilenet_v2 3,504,872;
  // inception_v3 27,161,264 with its auxiliary classifier, whose 128x768 1x1 conv + BN
  // (98,304 + 256), 768x128x5x5 conv + BN (2,457,600 + 1,536) and 768->1000 fc (769,000) make
  // 3,326,696: 23,834,568 without it.
  for (auto [name, count] :
       std::vector<std::pair<std::string, int64_t>>{{"resnet18", 11689512},
                                                    {"resnet50", 25557032},
                                                    {"densenet121", 7978856},
                                                    {"mobilenet_v2", 3504872},
                                                    {"inception_v3", 27161264 - 3326696}}) {
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

TEST(TorchModels, ForwardShapesOfTheBranchingModels) {
  // Concatenations (DenseNet, Inception) and depthwise convolutions with residual adds
  // (MobileNetV2) at the smallest input each takes, in training and evaluation mode.
  torch::NoGradGuard no_grad;
  for (const std::string name : {"densenet121", "mobilenet_v2", "inception_v3"}) {
    auto model = make_model(name, 10, 3);
    const int s = input_for(name, 32);
    for (bool train : {true, false}) {
      model->train(train);
      const auto out = model->forward(torch::randn({2, 3, s, s}));
      EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 10})) << name;
      EXPECT_TRUE(torch::isfinite(out).all().item<bool>()) << name;
    }
  }
  EXPECT_THROW(make_model("inception_v3", 10, 3)->forward(torch::randn({1, 3, 74, 74})),
               UsageError);
  EXPECT_THROW(make_model("densenet121", 10, 3)->forward(torch::randn({1, 3, 28, 28})), UsageError);
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
  // DenseNet: Kaiming normal, fan_in: std = sqrt(2 / (in * kh * kw)), 128 x 992 x 1 x 1.
  const auto dp = make_model("densenet121", 10, 3)->named_parameters();
  EXPECT_NEAR(dp["features.denseblock4.denselayer16.conv1.weight"].std().item<double>(),
              std::sqrt(2.0 / 992), 0.02 * std::sqrt(2.0 / 992));
  EXPECT_TRUE(dp["classifier.bias"].eq(0).all().item<bool>());
  // MobileNetV2: classifier N(0, 0.01); Inception-v3: N(0, 0.1) truncated at +-2.
  const auto mp = make_model("mobilenet_v2", 10, 3)->named_parameters();
  EXPECT_NEAR(mp["classifier.1.weight"].std().item<double>(), 0.01, 5e-4);
  const auto ip = make_model("inception_v3", 10, 3)->named_parameters();
  EXPECT_NEAR(ip["Mixed_7c.branch3x3dbl_1.conv.weight"].std().item<double>(), 0.1, 1e-3);
  EXPECT_NEAR(ip["Mixed_7c.branch3x3dbl_1.bn.weight"].mean().item<double>(), 1.0, 0.0);
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
