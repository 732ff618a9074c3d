#include "workloads/layers/model_zoo.h"

#include <functional>
#include <utility>

#include "engine/error.h"
#include "workloads/layers/model_families.h"

namespace prunex {

namespace {

using Builder = std::function<void(ModelLayout&)>;

const std::vector<std::pair<std::string, Builder>>& zoo() {
  static const std::vector<std::pair<std::string, Builder>> models = {
      {"resnet18", build_resnet},
      {"resnet34", build_resnet},
      {"resnet50", build_resnet},
      {"resnet101", build_resnet},
      {"resnet152", build_resnet},
      {"wide_resnet50_2", build_resnet},
      {"wide_resnet101_2", build_resnet},
      {"resnext50_32x4d", build_resnet},
      {"resnext101_32x8d", build_resnet},
      {"vgg11", build_vgg},
      {"vgg11_bn", build_vgg},
      {"vgg13", build_vgg},
      {"vgg13_bn", build_vgg},
      {"vgg16", build_vgg},
      {"vgg16_bn", build_vgg},
      {"vgg19", build_vgg},
      {"vgg19_bn", build_vgg},
      {"alexnet", build_alexnet},
      {"densenet121", build_densenet},
      {"mobilenet_v2", build_mobilenet_v2},
      {"inception_v3", build_inception_v3},
      {"resnet20", build_resnet},
      {"small_cnn", build_small_cnn},
  };
  return models;
}

std::string joined_names() {
  std::string s;
  for (const auto& n : model_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& m : zoo()) names.push_back(m.first);
  return names;
}

ModelLayout make_layout(const std::string& model, int classes, int input_size, int input_channels) {
  const Builder* builder = nullptr;
  for (const auto& m : zoo())
    if (m.first == model) builder = &m.second;
  PRUNEX_USAGE(builder != nullptr, "unknown model '", model, "' (one of ", joined_names(), ")");
  PRUNEX_USAGE(classes >= 1, "classes must be at least 1, got ", classes);
  PRUNEX_USAGE(input_size >= 1, "input size must be at least 1, got ", input_size);
  PRUNEX_USAGE(input_channels >= 1, "input channels must be at least 1, got ", input_channels);
  ModelLayout layout;
  layout.model = model;
  layout.classes = classes;
  layout.input_size = input_size;
  layout.input_channels = input_channels;
  (*builder)(layout);
  return layout;
}

}  // namespace prunex
