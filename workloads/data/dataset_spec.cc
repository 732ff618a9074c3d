#include "workloads/data/dataset_spec.h"

#include "engine/error.h"

namespace prunex {

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
  std::string known;
  for (const auto& n : dataset_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown data set '" + name + "' (known: " + known + ")");
}

}  // namespace prunex
