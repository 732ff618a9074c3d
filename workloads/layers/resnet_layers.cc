// ResNet layer tables. Architecture facts from torchvision/models/resnet.py (v1.5: the
// bottleneck's stride sits on its 3x3 conv) and He et al. 2016 (arXiv:1512.03385) for the
// CIFAR resnet20; module registration order is torchvision's: conv1, bn1, conv2, bn2
// [, conv3, bn3], downsample.
#include <string>
#include <vector>

#include "engine/error.h"
#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

namespace {

// One residual block; the shortcut (if any) restarts from the block's input.
void block(LayoutBuilder& b, const ResNetSpec& spec, const std::string& prefix, int64_t planes,
           int stride) {
  const ActivationShape in = b.shape();
  int64_t out_channels = planes;
  if (spec.bottleneck) {
    const int64_t width = planes * spec.width_per_group / 64 * spec.groups;
    out_channels = planes * 4;  // Bottleneck.expansion
    b.conv(prefix + ".conv1", width, 1, 1, 0, false);
    b.batch_norm(prefix + ".bn1");
    b.conv(prefix + ".conv2", width, 3, stride, 1, false, spec.groups);
    b.batch_norm(prefix + ".bn2");
    b.conv(prefix + ".conv3", out_channels, 1, 1, 0, false);
    b.batch_norm(prefix + ".bn3");
  } else {
    b.conv(prefix + ".conv1", planes, 3, stride, 1, false);
    b.batch_norm(prefix + ".bn1");
    b.conv(prefix + ".conv2", planes, 3, 1, 1, false);
    b.batch_norm(prefix + ".bn2");
  }
  if (stride != 1 || in.channels != out_channels) {
    const ActivationShape out = b.shape();
    b.set_shape(in);
    b.conv(prefix + ".downsample.0", out_channels, 1, stride, 0, false);
    b.batch_norm(prefix + ".downsample.1");
    PRUNEX_CHECK(b.shape() == out, "shortcut and main path disagree in ", prefix);
  }
}

}  // namespace

ResNetSpec resnet_spec(const std::string& model) {
  const std::vector<int64_t> planes{64, 128, 256, 512};
  if (model == "resnet18") return {false, {2, 2, 2, 2}, planes, 64, true};
  if (model == "resnet34") return {false, {3, 4, 6, 3}, planes, 64, true};
  if (model == "resnet50") return {true, {3, 4, 6, 3}, planes, 64, true};
  if (model == "resnet101") return {true, {3, 4, 23, 3}, planes, 64, true};
  if (model == "resnet152") return {true, {3, 8, 36, 3}, planes, 64, true};
  if (model == "wide_resnet50_2") return {true, {3, 4, 6, 3}, planes, 128, true};
  if (model == "wide_resnet101_2") return {true, {3, 4, 23, 3}, planes, 128, true};
  if (model == "resnext50_32x4d") return {true, {3, 4, 6, 3}, planes, 4, true, 32};
  if (model == "resnext101_32x8d") return {true, {3, 4, 23, 3}, planes, 8, true, 32};
  PRUNEX_CHECK(model == "resnet20", "no ResNet spec for ", model);
  return {false, {3, 3, 3}, {16, 32, 64}, 64, false};
}

void build_resnet(ModelLayout& layout) {
  const ResNetSpec spec = resnet_spec(layout.model);
  LayoutBuilder b(layout);
  if (spec.imagenet_stem) {
    b.conv("conv1", 64, 7, 2, 3, false);
    b.batch_norm("bn1");
    b.pool("maxpool", 3, 2, 1);
  } else {
    b.conv("conv1", spec.planes[0], 3, 1, 1, false);
    b.batch_norm("bn1");
  }
  for (size_t s = 0; s < spec.blocks.size(); ++s) {
    for (int i = 0; i < spec.blocks[s]; ++i) {
      const int stride = (s > 0 && i == 0) ? 2 : 1;
      block(b, spec, "layer" + std::to_string(s + 1) + "." + std::to_string(i), spec.planes[s],
            stride);
    }
  }
  b.adaptive_pool(1);
  b.fc("fc", layout.classes, true);
}

}  // namespace prunex
