// Layer tables checked against published counts and hand arithmetic, never against the
// tables' own output.
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>

#include "engine/error.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

struct Published {
  const char* model;
  int64_t params_1000;  // torchvision docs, "Params" column (ImageNet, 1000 classes)
  int64_t head_in;      // in-features of the last Linear
  int64_t params_10;    // the task's figures: 1000-class count minus the smaller head
  size_t tensors;       // len(list(model.parameters())), derived in the comments below
};

// Tensor counts: resnet18 = 3 (conv1, bn1) + 8 blocks x 6 + 3 downsamples x 3 + 2 (fc) = 62;
// resnet50 = 3 + 16 blocks x 9 + 4 x 3 + 2 = 161; resnet152 = 3 + 50 x 9 + 4 x 3 + 2 = 467;
// vgg19 = 16 convs x 2 + 3 fc x 2 = 38; vgg19_bn = 16 x (2 + 2) + 6 = 70.
const Published kPublished[] = {
    {"resnet18", 11689512, 512, 11181642, 62},
    {"resnet50", 25557032, 2048, 23528522, 161},
    {"resnet152", 60192808, 2048, 58164298, 467},
    {"wide_resnet50_2", 68883240, 2048, 66854730, 161},
    {"vgg19", 143667240, 4096, 139611210, 38},
    {"vgg19_bn", 143678248, 4096, 139622218, 70},
};

TEST(LayerTables, TorchvisionCountsWithTenClasses) {
  for (const auto& p : kPublished) {
    const ModelLayout l = make_layout(p.model);
    EXPECT_EQ(l.parameters(), p.params_10) << p.model;
    EXPECT_EQ(l.fp32_bytes(), 4 * p.params_10) << p.model;
    EXPECT_EQ(l.layers.size(), p.tensors) << p.model;
  }
}

TEST(LayerTables, TorchvisionPublishedCountsWithThousandClasses) {
  for (const auto& p : kPublished) {
    EXPECT_EQ(make_layout(p.model, 1000, 224).parameters(), p.params_1000) << p.model;
    // The head is the only class-dependent part: (in + 1) parameters per class.
    EXPECT_EQ(make_layout(p.model, 100).parameters(), p.params_10 + 90 * (p.head_in + 1))
        << p.model;
  }
}

TEST(LayerTables, InputSizeDoesNotChangeParameters) {
  for (const auto& p : kPublished)
    EXPECT_EQ(make_layout(p.model, 10, 64).parameters(), p.params_10) << p.model;
}

// resnet20, option B, 10 classes (o x i x 3 x 3 per conv, 2o per BN):
//   stem    conv1 16*3*9 = 432, bn1 32                                   ->     464
//   layer1  3 x (2 x 16*16*9 + 2 x 32) = 3 x 4,672                       ->  14,016
//   layer2  block0: 32*16*9 + 32*32*9 + 128 + shortcut 32*16 + 64 = 14,528
//           blocks 1,2: 2 x (2 x 9,216 + 128) = 37,120                   ->  51,648
//   layer3  block0: 64*32*9 + 64*64*9 + 256 + shortcut 64*32 + 128 = 57,728
//           blocks 1,2: 2 x (2 x 36,864 + 256) = 147,968                 -> 205,696
//   fc      64*10 + 10                                                   ->     650
//   total 272,474 = 269,722 (option A, the paper's "0.27M") + 2,752 shortcut parameters.
TEST(LayerTables, Resnet20ByHand) {
  EXPECT_EQ(make_layout("resnet20").parameters(), 272474);
  // One input channel: conv1 loses 16*2*9 = 288.
  EXPECT_EQ(make_layout("resnet20", 10, 28, 1).parameters(), 272474 - 288);
  const ModelLayout l = make_layout("resnet20");
  EXPECT_EQ(l.layers.size(), 3u + 9 * 6 + 2 * 3 + 2);
  const int ds = l.find("layer3.0.downsample.0.weight");
  ASSERT_GE(ds, 0);
  EXPECT_EQ(l.layers[ds].shape, (std::vector<int64_t>{64, 32, 1, 1}));
  EXPECT_EQ(l.layers[ds].out_h, 8);
  EXPECT_EQ(l.find("layer1.0.downsample.0.weight"), -1);
  EXPECT_EQ(l.layers[l.find("layer3.2.conv2.weight")].out_w, 8);
}

// small_cnn, 32x32x3, 10 classes: convs 32*3*9 + 32*32*9 + 64*32*9 + 64*64*9 = 65,376;
// BN 2 x (32 + 32 + 64 + 64) = 384; fc 650 -> 66,410.
TEST(LayerTables, SmallCnnByHandIncludingFlops) {
  EXPECT_EQ(make_layout("small_cnn").parameters(), 66410);
  // Fashion-MNIST 28x28x1: MACs 32*1*9*784 + 32*32*9*784 + (pool -> 14x14) 64*32*9*196
  // + 64*64*9*196 + 64*10 = 225,792 + 7,225,344 + 3,612,672 + 7,225,344 + 640 = 18,289,792;
  // BN 4 x (2 x 32*784 + 2 x 64*196) = 301,056; fc bias 10.
  const ModelLayout l = make_layout("small_cnn", 10, 28, 1);
  EXPECT_EQ(l.parameters(), 66410 - 32 * 2 * 9);
  EXPECT_DOUBLE_EQ(l.forward_flops(), 2.0 * 18289792 + 301056 + 10);
  const char* names[] = {"features.0.weight",  "features.1.weight",
                         "features.1.bias",    "features.3.weight",
                         "features.4.weight",  "features.4.bias",
                         "features.7.weight",  "features.8.weight",
                         "features.8.bias",    "features.10.weight",
                         "features.11.weight", "features.11.bias",
                         "fc.weight",          "fc.bias"};
  ASSERT_EQ(l.layers.size(), std::size(names));
  for (size_t i = 0; i < l.layers.size(); ++i) EXPECT_EQ(l.layers[i].name, names[i]);
  EXPECT_EQ(l.layers[9].out_h, 14);
}

double conv_fc_flops(const ModelLayout& l) {
  double f = 0;
  for (const auto& x : l.layers)
    if (x.role == LayerRole::conv_weight || x.role == LayerRole::fc_weight) f += x.forward_flops;
  return f;
}

// resnet18, 224x224, 1000 classes, MACs by stage:
//   conv1 64*3*49*112*112 = 118,013,952
//   layer1 4 x 64*64*9*56*56 = 462,422,016
//   layer2..4 each: first conv (2c*c*9*hw = 57,802,752) + 3 x 115,605,504 + 1x1 shortcut
//     6,422,528 = 411,041,792, three times = 1,233,125,376
//   fc 512*1000 = 512,000
// total 1,814,073,344 MACs: torchvision's published "GFLOPS 1.81" (a MAC count).
TEST(LayerTables, Resnet18FlopsAt224) {
  const ModelLayout l = make_layout("resnet18", 1000, 224);
  EXPECT_DOUBLE_EQ(conv_fc_flops(l), 2.0 * 1814073344 + 1000 /* fc bias */);
  // BN: 4 per element of every BN's input.
  double bn = 0;
  for (const auto& x : l.layers)
    if (x.role == LayerRole::bn_weight) bn += x.forward_flops;
  // bn1 64*112*112; layer1 4 x 64*56*56; layer2..4 five BNs each (4 + shortcut) over
  // 128*28*28, 256*14*14, 512*7*7 elements.
  EXPECT_DOUBLE_EQ(bn, 4.0 * (802816 + 4 * 200704 + 5 * (100352 + 50176 + 25088)));
  EXPECT_EQ(l.layers[0].out_h, 112);
  EXPECT_EQ(l.layers[l.find("layer4.1.conv2.weight")].out_h, 7);
}

// vgg19, 224x224, 1000 classes. MACs: 86,704,128 (conv 3->64 at 224) + 1,849,688,064
// (64->64) + at 112: 924,844,032 + 1,849,688,064 + at 56: 924,844,032 + 3 x 1,849,688,064
// + at 28: 924,844,032 + 3 x 1,849,688,064 + at 14: 4 x 462,422,016 = 19,508,428,800 for the
// convs; fc 25088*4096 + 4096*4096 + 4096*1000 = 123,633,664 -> 19,632,062,464 (torchvision:
// 19.63). Bias adds: convs 2x64*50176 + 2x128*12544 + 4x256*3136 + 4x512*784 + 4x512*196
// = 14,852,096; fc 4096 + 4096 + 1000.
TEST(LayerTables, Vgg19FlopsAt224) {
  const ModelLayout l = make_layout("vgg19", 1000, 224);
  EXPECT_DOUBLE_EQ(l.forward_flops(), 2.0 * 19632062464 + 14852096 + 9192);
  EXPECT_EQ(l.layers[l.find("features.34.weight")].out_h, 14);
}

// The output values of the batch norms and convolutions per sample at 224x224 (what the
// per-layer compute model counts), against torchvision 0.14's modules: the numel of every
// BatchNorm2d and Conv2d output summed by forward hooks on one 1x3x224x224 input.
TEST(LayerTables, ActivationCountsMatchTorchvision) {
  const struct {
    const char* model;
    int64_t bn, conv;
  } want[] = {{"resnet50", 11113984, 11113984},
              {"vgg16", 0, 13547520},
              {"densenet121", 15667456, 6899200},
              {"mobilenet_v2", 6678112, 6678112}};
  for (const auto& w : want) {
    const ModelLayout l = make_layout(w.model, 1000, 224);
    EXPECT_EQ(l.batch_norm_outputs(), w.bn) << w.model;
    EXPECT_EQ(l.conv_outputs(), w.conv) << w.model;
  }
  // The matrix products' FLOPs are the forward FLOPs without the batch norms' 4 per value.
  const ModelLayout r = make_layout("resnet50", 1000, 224);
  EXPECT_DOUBLE_EQ(r.matrix_forward_flops(), r.forward_flops() - 4.0 * 11113984);
}

// Published MAC counts (torchvision docs, "GFLOPS" column) for the bottleneck ResNets at
// 224x224; the table's conv + fc MACs should land within 0.5%.
TEST(LayerTables, BottleneckFlopsNearPublished) {
  const std::pair<const char*, double> published[] = {
      {"resnet50", 4.09e9}, {"resnet152", 11.51e9}, {"wide_resnet50_2", 11.40e9}};
  for (const auto& [model, macs] : published) {
    const double got = conv_fc_flops(make_layout(model, 1000, 224)) / 2;
    EXPECT_NEAR(got / macs, 1.0, 0.005) << model << " " << got;
  }
}

TEST(LayerTables, TorchvisionNamesAndShapes) {
  const ModelLayout r18 = make_layout("resnet18");
  EXPECT_EQ(r18.layers[0].name, "conv1.weight");
  EXPECT_EQ(r18.layers[0].shape, (std::vector<int64_t>{64, 3, 7, 7}));
  EXPECT_EQ(r18.layers[0].out_h, 16);  // 7x7/2 even at 32x32
  EXPECT_EQ(r18.layers[1].name, "bn1.weight");
  EXPECT_EQ(r18.layers[2].name, "bn1.bias");
  EXPECT_EQ(r18.layers[3].name, "layer1.0.conv1.weight");
  EXPECT_EQ(r18.find("layer1.0.downsample.0.weight"), -1);
  EXPECT_EQ(r18.layers[r18.find("layer2.0.downsample.0.weight")].shape,
            (std::vector<int64_t>{128, 64, 1, 1}));
  EXPECT_EQ(r18.layers[r18.find("layer4.1.bn2.weight")].out_h, 1);
  EXPECT_EQ(r18.layers.back().name, "fc.bias");
  EXPECT_EQ(r18.layers[r18.layers.size() - 2].shape, (std::vector<int64_t>{10, 512}));

  const ModelLayout r50 = make_layout("resnet50");
  const char* block[] = {"conv1.weight",        "bn1.weight",          "bn1.bias",
                         "conv2.weight",        "bn2.weight",          "bn2.bias",
                         "conv3.weight",        "bn3.weight",          "bn3.bias",
                         "downsample.0.weight", "downsample.1.weight", "downsample.1.bias"};
  for (size_t i = 0; i < std::size(block); ++i)
    EXPECT_EQ(r50.layers[3 + i].name, std::string("layer1.0.") + block[i]);
  EXPECT_EQ(r50.layers[r50.find("layer1.0.downsample.0.weight")].shape,
            (std::vector<int64_t>{256, 64, 1, 1}));
  EXPECT_EQ(r50.layers[r50.find("layer2.0.conv2.weight")].out_h, 4);  // stride on the 3x3
  EXPECT_GE(make_layout("resnet152").find("layer3.35.conv3.weight"), 0);
  const ModelLayout wide = make_layout("wide_resnet50_2");
  EXPECT_EQ(wide.layers[wide.find("layer1.0.conv2.weight")].shape,
            (std::vector<int64_t>{128, 128, 3, 3}));
  EXPECT_EQ(wide.layers[wide.find("layer4.2.conv3.weight")].shape,
            (std::vector<int64_t>{2048, 1024, 1, 1}));

  // VGG: conv, ReLU [, BN] and max-pool each take a `features` index.
  const ModelLayout vgg = make_layout("vgg19");
  EXPECT_EQ(vgg.layers[0].name, "features.0.weight");
  EXPECT_EQ(vgg.layers[1].name, "features.0.bias");
  EXPECT_EQ(vgg.layers[1].role, LayerRole::bias);
  EXPECT_EQ(vgg.layers[2].name, "features.2.weight");
  EXPECT_EQ(vgg.layers[4].name, "features.5.weight");
  EXPECT_EQ(vgg.layers[vgg.find("features.34.weight")].shape,
            (std::vector<int64_t>{512, 512, 3, 3}));
  EXPECT_EQ(vgg.layers[vgg.find("classifier.0.weight")].shape, (std::vector<int64_t>{4096, 25088}));
  EXPECT_EQ(vgg.layers[vgg.find("classifier.6.weight")].shape, (std::vector<int64_t>{10, 4096}));
  const ModelLayout vbn = make_layout("vgg19_bn");
  EXPECT_EQ(vbn.layers[2].name, "features.1.weight");
  EXPECT_EQ(vbn.layers[2].role, LayerRole::bn_weight);
  EXPECT_EQ(vbn.layers[4].name, "features.3.weight");
  EXPECT_GE(vbn.find("features.49.weight"), 0);  // the last conv
  EXPECT_EQ(vbn.layers[vbn.find("features.50.bias")].role, LayerRole::bn_bias);
}

TEST(LayerTables, BranchingModelsByArithmetic) {
  // DenseNet-121: each block adds layers x 32 channels, each transition halves them:
  // 64 + 6*32 = 256 -> 128 + 12*32 = 512 -> 256 + 24*32 = 1024 -> 512 + 16*32 = 1024.
  const ModelLayout d = make_layout("densenet121", 1000, 224);
  EXPECT_EQ(d.layers[d.find("classifier.weight")].shape, (std::vector<int64_t>{1000, 1024}));
  EXPECT_EQ(d.layers[d.find("features.transition2.conv.weight")].shape,
            (std::vector<int64_t>{256, 512, 1, 1}));
  // The last dense layer normalises 512 + 15*32 = 992 channels at 7x7: 4 * 992 * 49 FLOPs.
  const auto& norm = d.layers[d.find("features.denseblock4.denselayer16.norm1.weight")];
  EXPECT_EQ(norm.shape, (std::vector<int64_t>{992}));
  EXPECT_DOUBLE_EQ(norm.forward_flops, 4.0 * 992 * 7 * 7);
  // MobileNetV2: the depthwise conv of features.2 (16 -> 96 channels, stride 2 to 56x56) has
  // one input channel per group: 2 * 96 * 56 * 56 * 9 FLOPs.
  const ModelLayout m = make_layout("mobilenet_v2", 1000, 224);
  const auto& dw = m.layers[m.find("features.2.conv.1.0.weight")];
  EXPECT_EQ(dw.shape, (std::vector<int64_t>{96, 1, 3, 3}));
  EXPECT_DOUBLE_EQ(dw.forward_flops, 2.0 * 96 * 56 * 56 * 9);
  // Inception-v3 at 299: 35x35 after the stem, Mixed_5b = 64 + 64 + 96 + 32 = 256 channels
  // into Mixed_5c; a 1x7 conv of Mixed_6b at 17x17: 2 * 128 * 128 * 7 * 289.
  const ModelLayout i = make_layout("inception_v3", 1000, 299);
  EXPECT_EQ(i.layers[i.find("Mixed_5c.branch1x1.conv.weight")].shape,
            (std::vector<int64_t>{64, 256, 1, 1}));
  const auto& w17 = i.layers[i.find("Mixed_6b.branch7x7_2.conv.weight")];
  EXPECT_EQ(w17.shape, (std::vector<int64_t>{128, 128, 1, 7}));
  EXPECT_DOUBLE_EQ(w17.forward_flops, 2.0 * 128 * 128 * 7 * 17 * 17);
  EXPECT_EQ(i.layers[i.find("fc.weight")].shape, (std::vector<int64_t>{1000, 2048}));
  EXPECT_THROW(make_layout("inception_v3", 1000, 74), UsageError);
}

TEST(LayerTables, NamesUniqueAndRolesMatchShapes) {
  for (const auto& model : model_names()) {
    const int input = model == "alexnet" ? 64 : model == "inception_v3" ? 75 : 32;
    const ModelLayout l = make_layout(model, 10, input);
    std::set<std::string> seen;
    for (const auto& x : l.layers) {
      EXPECT_TRUE(seen.insert(x.name).second) << model << " repeats " << x.name;
      const bool weight = x.name.size() > 7 && x.name.substr(x.name.size() - 7) == ".weight";
      switch (x.role) {
        case LayerRole::conv_weight:
          EXPECT_EQ(x.shape.size(), 4u) << x.name;
          break;
        case LayerRole::fc_weight:
          EXPECT_EQ(x.shape.size(), 2u) << x.name;
          break;
        case LayerRole::bn_weight:
          EXPECT_TRUE(weight) << x.name;
          [[fallthrough]];
        case LayerRole::bias:
        case LayerRole::bn_bias:
          EXPECT_EQ(x.shape.size(), 1u) << x.name;
          break;
      }
      if (x.role == LayerRole::bias || x.role == LayerRole::bn_bias) {
        EXPECT_FALSE(weight) << x.name;
        EXPECT_EQ(x.forward_flops, 0) << x.name;
      } else {
        EXPECT_GT(x.forward_flops, 0) << x.name;
      }
    }
    EXPECT_TRUE(l.layers[0].is_conv()) << model;
  }
}

TEST(LayerTables, BadInputIsUsageError) {
  EXPECT_THROW(make_layout("nope"), UsageError);
  try {
    make_layout("resnet");
    ADD_FAILURE() << "no UsageError for an unknown model";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("resnet152"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_layout("resnet18", 0), UsageError);
  EXPECT_THROW(make_layout("resnet18", 10, 0), UsageError);
  EXPECT_THROW(make_layout("resnet18", 10, 32, 0), UsageError);
  // Five 2x2 max-pools: 28 -> 14 -> 7 -> 3 -> 1 -> nothing.
  EXPECT_THROW(make_layout("vgg19", 10, 28, 1), UsageError);
  EXPECT_NO_THROW(make_layout("vgg19", 10, 32, 1));
  EXPECT_THROW(make_layout("small_cnn", 10, 3), UsageError);
  EXPECT_NO_THROW(make_layout("small_cnn", 10, 4));
  EXPECT_NO_THROW(make_layout("resnet152", 10, 1));
}

}  // namespace
}  // namespace prunex
