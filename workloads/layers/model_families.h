// One builder per architecture family; model_zoo.cc dispatches to them. Each appends the
// model's tensors to a layout whose model/classes/input fields are already set.
#pragma once

#include "engine/layer_layout.h"

namespace prunex {

// torchvision ResNets (resnet18, resnet50, resnet152, wide_resnet50_2) and CIFAR resnet20.
void build_resnet(ModelLayout& layout);
// torchvision VGG (vgg19, vgg19_bn).
void build_vgg(ModelLayout& layout);
// small_cnn.
void build_small_cnn(ModelLayout& layout);

}  // namespace prunex
