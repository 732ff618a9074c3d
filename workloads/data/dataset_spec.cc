#include "workloads/data/dataset_spec.h"

#include "engine/error.h"

namespace prunex {
namespace {

std::string names_text(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names{"cifar10", "fashion-mnist", "synthetic"};
  return names;
}

DatasetSpec dataset_spec(const std::string& name) {
  // Sample counts of the published sets: CIFAR-10 (Krizhevsky 2009) 50,000 / 10,000;
  // Fashion-MNIST (Xiao et al. 2017) 60,000 / 10,000.
  if (name == "cifar10") return {name, 3, 32, 10, 50000, 10000, true, cifar10_normalization()};
  if (name == "fashion-mnist")
    return {name, 1, 28, 10, 60000, 10000, false, fashion_mnist_normalization()};
  if (name == "synthetic") return {name, 3, 32, 10, 8192, 2048, false, {}};
  throw UsageError("unknown data set '" + name + "' (known: " + names_text(dataset_names()) + ")");
}

const std::vector<std::string>& shaped_dataset_names() {
  static const std::vector<std::string> names{"cifar10", "fashion-mnist", "imagenet"};
  return names;
}

DatasetSpec dataset_shape(const std::string& name) {
  // ImageNet-1k (ILSVRC 2012, Russakovsky et al. 2015): 1,281,167 training and 50,000
  // validation images of 1000 classes, trained at 224 x 224 crops.
  if (name == "imagenet") return {name, 3, 224, 1000, 1281167, 50000, true, {}};
  if (name == "cifar10" || name == "fashion-mnist") return dataset_spec(name);
  throw UsageError("unknown data set '" + name + "' (known: " + names_text(shaped_dataset_names()) +
                   ")");
}

}  // namespace prunex
