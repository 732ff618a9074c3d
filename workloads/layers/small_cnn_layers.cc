// small_cnn: a four-conv network for CPU runs on CIFAR-10 (32x32x3) and Fashion-MNIST
// (28x28x1). Module numbering and parameter names are documented in model_zoo.h; the
// LibTorch module must register the same nn.Sequential indices.
#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

void build_small_cnn(ModelLayout& layout) {
  LayoutBuilder b(layout);
  b.conv("features.0", 32, 3, 1, 1, false);
  b.batch_norm("features.1");
  b.conv("features.3", 32, 3, 1, 1, false);
  b.batch_norm("features.4");
  b.pool("features.6", 2, 2, 0);
  b.conv("features.7", 64, 3, 1, 1, false);
  b.batch_norm("features.8");
  b.conv("features.10", 64, 3, 1, 1, false);
  b.batch_norm("features.11");
  b.pool("features.13", 2, 2, 0);
  b.adaptive_pool(1);
  b.fc("fc", layout.classes, true);
}

}  // namespace prunex
