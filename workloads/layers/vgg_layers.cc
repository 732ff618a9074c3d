// VGG layer tables. Architecture facts from torchvision/models/vgg.py: configurations A, B, D
// and E (VGG-11/13/16/19, Simonyan & Zisserman 2015, arXiv:1409.1556), convs 3x3 pad 1 with
// bias even when BN follows; `features` numbers conv [, BN], ReLU and max-pool modules in
// order; AdaptiveAvgPool2d((7, 7)); classifier = Linear(25088, 4096), ReLU, Dropout,
// Linear(4096, 4096), ReLU, Dropout, Linear(4096, classes) -> indices 0, 3, 6. The _bn
// variants put a BatchNorm2d after every conv.
#include <string>
#include <vector>

#include "engine/error.h"
#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

// torchvision's cfgs A: VGG-11, B: VGG-13, D: VGG-16, E: VGG-19 (Simonyan & Zisserman
// 2015, Table 1).
const std::vector<int>& vgg_config(const std::string& model) {
  static const std::vector<int> a = {64,  kVggMaxPool, 128,        kVggMaxPool, 256,
                                     256, kVggMaxPool, 512,        512,         kVggMaxPool,
                                     512, 512,         kVggMaxPool};
  static const std::vector<int> b = {64,  64,  kVggMaxPool, 128, 128, kVggMaxPool,
                                     256, 256, kVggMaxPool, 512, 512, kVggMaxPool,
                                     512, 512, kVggMaxPool};
  static const std::vector<int> d = {64,  64,          kVggMaxPool, 128,         128, kVggMaxPool,
                                     256, 256,         256,         kVggMaxPool, 512, 512,
                                     512, kVggMaxPool, 512,         512,         512, kVggMaxPool};
  static const std::vector<int> e = {
      64,  64,  kVggMaxPool, 128, 128,         kVggMaxPool, 256, 256, 256, 256,        kVggMaxPool,
      512, 512, 512,         512, kVggMaxPool, 512,         512, 512, 512, kVggMaxPool};
  const std::string base = model.substr(0, model.find('_'));
  if (base == "vgg11") return a;
  if (base == "vgg13") return b;
  if (base == "vgg16") return d;
  PRUNEX_CHECK(base == "vgg19", "no VGG configuration for ", model);
  return e;
}

bool vgg_batch_norm(const std::string& model) {
  return model.size() > 3 && model.compare(model.size() - 3, 3, "_bn") == 0;
}

void build_vgg(ModelLayout& layout) {
  const bool batch_norm = vgg_batch_norm(layout.model);
  LayoutBuilder b(layout);
  int index = 0;  // module index inside `features`
  for (int v : vgg_config(layout.model)) {
    const std::string module = "features." + std::to_string(index);
    if (v == kVggMaxPool) {
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
