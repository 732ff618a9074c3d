// What a data set name stands for before anything is loaded: the shapes that models and
// layer tables need, and how training batches are prepared. No LibTorch: `prunex train
// --check` reads it in the executable that has none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/data/normalization.h"

namespace prunex {

struct DatasetSpec {
  std::string name;  // one of dataset_names()
  int channels = 3, image_size = 32, classes = 10;
  int64_t train_samples = 0, test_samples = 0;
  bool augment = false;         // CIFAR training augmentation (batches.h) applies
  Normalization normalization;  // empty for synthetic data (generated standardised)
};

// "cifar10", "fashion-mnist", "synthetic".
const std::vector<std::string>& dataset_names();

// The spec of a named set; unknown name -> UsageError listing the names. Synthetic sets
// default to CIFAR's shape (3x32x32, 10 classes, 8192 train / 2048 test); a caller may change
// channels, image_size, classes and sample counts before loading.
DatasetSpec dataset_spec(const std::string& name);

// The data sets a simulated run can take the shape of (no files needed): "cifar10",
// "fashion-mnist" and "imagenet" (ILSVRC 2012: 3 x 224 x 224 as trained, 1000 classes).
const std::vector<std::string>& shaped_dataset_names();
// The shape of one of them (channels, image size, classes, sample counts); unknown name ->
// UsageError listing the names.
DatasetSpec dataset_shape(const std::string& name);

}  // namespace prunex
