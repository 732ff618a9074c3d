// One builder per architecture family; model_zoo.cc dispatches to them. Each appends the
// model's tensors to a layout whose model/classes/input fields are already set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex {

// A ResNet's architecture, read by the layer table and the LibTorch model alike.
struct ResNetSpec {
  bool bottleneck = false;
  std::vector<int> blocks;       // per stage
  std::vector<int64_t> planes;   // per stage (stage 0 has stride 1, the rest stride 2)
  int64_t width_per_group = 64;  // wide_resnet: 128 (bottleneck inner width x2)
  bool imagenet_stem = true;     // 7x7/2 conv + 3x3/2 max-pool; else 3x3/1 conv
  int groups = 1;                // ResNeXt: the 3x3 conv's groups (32)
};
// torchvision ResNets (resnet18/34/50/101/152, wide_resnet50_2/101_2, resnext50_32x4d,
// resnext101_32x8d) and CIFAR resnet20. A bottleneck's inner width is
// planes * width_per_group / 64 * groups, as torchvision's.
ResNetSpec resnet_spec(const std::string& model);
void build_resnet(ModelLayout& layout);

// A VGG's `features`: output channels per 3x3 conv, kVggMaxPool for a 2x2/2 max-pool
// (torchvision's cfgs A, B, D, E for vgg11/13/16/19); `_bn` variants add BN after each conv.
inline constexpr int kVggMaxPool = 0;
const std::vector<int>& vgg_config(const std::string& model);
bool vgg_batch_norm(const std::string& model);
void build_vgg(ModelLayout& layout);
// torchvision's AlexNet (alexnet_layers.cc); inputs of at least 63x63.
void build_alexnet(ModelLayout& layout);
// torchvision's densenet121 (densenet_layers.cc), mobilenet_v2 (mobilenet_layers.cc) and
// inception_v3 without its auxiliary classifier (inception_layers.cc; inputs of at least 75).
void build_densenet(ModelLayout& layout);
void build_mobilenet_v2(ModelLayout& layout);
void build_inception_v3(ModelLayout& layout);
// small_cnn.
void build_small_cnn(ModelLayout& layout);

}  // namespace prunex
