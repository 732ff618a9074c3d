// AlexNet's layer table as torchvision builds it (torchvision/models/alexnet.py; Krizhevsky et
// al. 2012, the one-GPU variant of "One weird trick", arXiv:1404.5997): `features` numbers
// conv, ReLU and max-pool modules in order: conv 11x11 stride 4 pad 2 (64), pool 3/2, conv
// 5x5 pad 2 (192), pool 3/2, conv 3x3 pad 1 (384, 256, 256), pool 3/2; AdaptiveAvgPool2d((6,
// 6)); classifier = Dropout, Linear(9216, 4096), ReLU, Dropout, Linear(4096, 4096), ReLU,
// Linear(4096, classes) -> indices 1, 4, 6. Every conv and linear layer has a bias. Inputs
// below 63x63 pool down to nothing (the layout builder says which pool).
#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

void build_alexnet(ModelLayout& layout) {
  LayoutBuilder b(layout);
  b.conv("features.0", 64, 11, 4, 2, true);
  b.pool("features.2", 3, 2, 0);
  b.conv("features.3", 192, 5, 1, 2, true);
  b.pool("features.5", 3, 2, 0);
  b.conv("features.6", 384, 3, 1, 1, true);
  b.conv("features.8", 256, 3, 1, 1, true);
  b.conv("features.10", 256, 3, 1, 1, true);
  b.pool("features.12", 3, 2, 0);
  b.adaptive_pool(6);
  b.fc("classifier.1", 4096, true);
  b.fc("classifier.4", 4096, true);
  b.fc("classifier.6", layout.classes, true);
}

}  // namespace prunex
