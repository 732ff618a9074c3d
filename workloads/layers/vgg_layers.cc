// VGG layer tables. Architecture facts from torchvision/models/vgg.py: configuration "E"
// (VGG-19, Simonyan & Zisserman 2015, arXiv:1409.1556), convs 3x3 pad 1 with bias even when
// BN follows; `features` numbers conv [, BN], ReLU and max-pool modules in order;
// AdaptiveAvgPool2d((7, 7)); classifier = Linear(25088, 4096), ReLU, Dropout,
// Linear(4096, 4096), ReLU, Dropout, Linear(4096, classes) -> indices 0, 3, 6.
#include <string>

#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

namespace {

constexpr int kMaxPool = 0;
// Configuration E: output channels per conv, kMaxPool for a 2x2/2 max-pool.
constexpr int kVgg19[] = {64,  64,       kMaxPool, 128,      128, kMaxPool, 256,
                          256, 256,      256,      kMaxPool, 512, 512,      512,
                          512, kMaxPool, 512,      512,      512, 512,      kMaxPool};

}  // namespace

void build_vgg(ModelLayout& layout) {
  const bool batch_norm = layout.model == "vgg19_bn";
  LayoutBuilder b(layout);
  int index = 0;  // module index inside `features`
  for (int v : kVgg19) {
    const std::string module = "features." + std::to_string(index);
    if (v == kMaxPool) {
      b.pool(module, 2, 2, 0);
      index += 1;
      continue;
    }
    b.conv(module, v, 3, 1, 1, true);
    if (batch_norm) b.batch_norm("features." + std::to_string(index + 1));
    index += batch_norm ? 3 : 2;  // conv [, BN], ReLU
  }
  b.adaptive_pool(7);
  b.fc("classifier.0", 4096, true);
  b.fc("classifier.3", 4096, true);
  b.fc("classifier.6", layout.classes, true);
}

}  // namespace prunex
