// Shape-only layer tables for the models PruneX trains or models: parameter tensors in
// torch's named_parameters() order (no buffers: no running stats), with role, shape, output
// size and forward FLOPs per sample (conventions in layout_builder.h).
//
// torchvision architectures (names exactly as torchvision's state dict; the stem takes
// input_channels, the head has `classes` outputs; the rest is unchanged whatever the input,
// so conv1 is 7x7 stride 2 + max-pool even at 32x32, and VGG keeps AdaptiveAvgPool(7x7) so
// classifier.0 is 25088 -> 4096):
//   resnet18, resnet50, resnet152, wide_resnet50_2, vgg19, vgg19_bn
//
// resnet20 (He et al. 2016, CIFAR ResNet, sec. 4.2) with "option B" shortcuts: where a
// block changes shape (first block of layer2 and layer3) the shortcut is a 1x1 stride-2
// conv + BN, as in torchvision's downsample; elsewhere identity. Names:
//   conv1.weight [16,C,3,3]; bn1.weight, bn1.bias
//   layer{1,2,3}.{0,1,2}.conv1.weight [o,i,3,3] (stride 2 at layer2.0, layer3.0)
//   layer{1,2,3}.{0,1,2}.bn1.weight/.bias, .conv2.weight [o,o,3,3], .bn2.weight/.bias
//   layer{2,3}.0.downsample.0.weight [o,i,1,1], layer{2,3}.0.downsample.1.weight/.bias
//   fc.weight [classes,64], fc.bias
// with o = 16/32/64 for layer1/2/3. No conv has a bias (BN follows each).
//
// small_cnn: `features` is an nn.Sequential, indices as torch numbers its modules:
//   0 Conv(C,32,3,pad 1,no bias) 1 BN(32) 2 ReLU 3 Conv(32,32) 4 BN 5 ReLU 6 MaxPool(2,2)
//   7 Conv(32,64) 8 BN 9 ReLU 10 Conv(64,64) 11 BN 12 ReLU 13 MaxPool(2,2)
// then global average pool and `fc` = Linear(64, classes). Parameters:
//   features.0.weight, features.1.weight, features.1.bias, features.3.weight,
//   features.4.weight, features.4.bias, features.7.weight, features.8.weight,
//   features.8.bias, features.10.weight, features.11.weight, features.11.bias,
//   fc.weight, fc.bias
// Convs have no bias because BN follows each (a bias before BN is cancelled by it).
#pragma once

#include <string>
#include <vector>

#include "engine/layer_layout.h"

namespace prunex {

// The layer table of `model` for `classes` outputs on input_channels x input_size x
// input_size inputs. UsageError for an unknown model (the message lists the valid names),
// classes < 1, or an input too small for the architecture.
ModelLayout make_layout(const std::string& model, int classes = 10, int input_size = 32,
                        int input_channels = 3);

// Valid model names, in a stable order.
std::vector<std::string> model_names();

}  // namespace prunex
