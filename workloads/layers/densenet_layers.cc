// DenseNet-121's layer table as torchvision builds it (torchvision/models/densenet.py; Huang et
// al. 2017, arXiv:1608.06993): growth rate 32, blocks of 6, 12, 24 and 16 layers, 64 initial
// features, bottleneck width 4 x 32 = 128. `features` holds conv0 (7x7/2 pad 3), norm0,
// pool0 (max 3/2 pad 1), then denseblock1..4 with transition1..3 between them, then norm5;
// `classifier` is one Linear with a bias. A dense layer (denselayer1, 2, ...) normalises the
// concatenation of everything before it: norm1, conv1 (1x1 to 128), norm2, conv2 (3x3 pad 1
// to 32), and its 32 new channels join the concatenation. A transition halves the channels
// (norm, 1x1 conv) and the side (2x2/2 average pool). No conv has a bias.
#include <string>
#include <vector>

#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

void build_densenet(ModelLayout& layout) {
  constexpr int64_t kGrowth = 32, kBottleneck = 4 * kGrowth;
  const std::vector<int> block_layers{6, 12, 24, 16};
  LayoutBuilder b(layout);
  b.conv("features.conv0", 64, 7, 2, 3, false);
  b.batch_norm("features.norm0");
  b.pool("features.pool0", 3, 2, 1);
  for (size_t s = 0; s < block_layers.size(); ++s) {
    const std::string block = "features.denseblock" + std::to_string(s + 1);
    for (int i = 0; i < block_layers[s]; ++i) {
      const std::string layer = block + ".denselayer" + std::to_string(i + 1);
      const ActivationShape in = b.shape();
      b.batch_norm(layer + ".norm1");
      b.conv(layer + ".conv1", kBottleneck, 1, 1, 0, false);
      b.batch_norm(layer + ".norm2");
      b.conv(layer + ".conv2", kGrowth, 3, 1, 1, false);
      b.concat(in.channels + kGrowth);
    }
    if (s + 1 == block_layers.size()) break;
    const std::string transition = "features.transition" + std::to_string(s + 1);
    b.batch_norm(transition + ".norm");
    b.conv(transition + ".conv", b.shape().channels / 2, 1, 1, 0, false);
    b.pool(transition + ".pool", 2, 2, 0);
  }
  b.batch_norm("features.norm5");
  b.adaptive_pool(1);
  b.fc("classifier", layout.classes, true);
}

}  // namespace prunex
