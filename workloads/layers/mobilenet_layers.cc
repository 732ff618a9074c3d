// MobileNetV2's layer table as torchvision builds it (torchvision/models/mobilenetv2.py;
// Sandler et al. 2018, arXiv:1801.04381, Table 2), width multiplier 1. `features.0` is a
// 3x3/2 conv to 32 + BN (a Conv2dNormActivation: modules .0 and .1); features.1..17 are
// inverted residual blocks of the paper's (t, c, n, s) rows (1,16,1,1) (6,24,2,2) (6,32,3,2)
// (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1), the first block of a row taking its stride;
// `features.18` is a 1x1 conv to 1280 + BN; the classifier is Dropout and Linear(1280,
// classes) -> index 1. A block's `conv` holds: an expansion 1x1 conv + BN to t x in channels
// (left out when t = 1), a depthwise 3x3 conv + BN (groups = its channels), then a 1x1
// projection conv and a BN. No conv has a bias.
#include <string>

#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

void build_mobilenet_v2(ModelLayout& layout) {
  struct Row {
    int expand;
    int64_t channels;
    int repeats, stride;
  };
  const Row rows[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  LayoutBuilder b(layout);
  b.conv("features.0.0", 32, 3, 2, 1, false);
  b.batch_norm("features.0.1");
  int index = 1;
  for (const Row& r : rows) {
    for (int i = 0; i < r.repeats; ++i, ++index) {
      const std::string conv = "features." + std::to_string(index) + ".conv.";
      const int64_t hidden = b.shape().channels * r.expand;
      int part = 0;
      if (r.expand != 1) {
        b.conv(conv + "0.0", hidden, 1, 1, 0, false);
        b.batch_norm(conv + "0.1");
        part = 1;
      }
      const std::string dw = conv + std::to_string(part);
      b.conv(dw + ".0", hidden, 3, i == 0 ? r.stride : 1, 1, false, static_cast<int>(hidden));
      b.batch_norm(dw + ".1");
      b.conv(conv + std::to_string(part + 1), r.channels, 1, 1, 0, false);
      b.batch_norm(conv + std::to_string(part + 2));
    }
  }
  b.conv("features.18.0", 1280, 1, 1, 0, false);
  b.batch_norm("features.18.1");
  b.adaptive_pool(1);
  b.fc("classifier.1", layout.classes, true);
}

}  // namespace prunex
