// In-memory data sets as LibTorch tensors: Fashion-MNIST, CIFAR-10 (binary), and a seeded
// synthetic task; each can be loaded as one shard (sharding.h) so that a worker holds only
// its own samples.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/data/dataset_spec.h"
#include "workloads/data/normalization.h"
#include "workloads/data/raw_images.h"
#include "workloads/data/sharding.h"

namespace prunex {

struct Dataset {
  torch::Tensor images;  // (N, C, H, W) float32, normalised
  torch::Tensor labels;  // (N) int64 in [0, classes)
  int classes = 10;

  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
  int64_t channels() const { return images.size(1); }
  int64_t image_size() const { return images.size(2); }  // H (= W for every set here)
};

// Samples [range.begin, range.end) of raw, as float (x / 255 - mean) / std per channel.
Dataset to_dataset(const RawImages& raw, const Normalization& norm, int classes, ShardRange range);

// Fashion-MNIST (1x28x28, 10 classes) from dir (empty: the Debian package's folder).
Dataset load_fashion_mnist(const std::string& dir, bool train, const ShardSpec& spec = {});

// CIFAR-10 (3x32x32, 10 classes) from the binary files under dir (cifar10_reader.h).
Dataset load_cifar10(const std::string& dir, bool train, const ShardSpec& spec = {});

// A learnable task that needs no files: each class has a smooth random prototype image
// (a 4x4 Gaussian pattern upsampled bilinearly), a sample is its class's prototype plus
// unit Gaussian noise; classes are balanced and shuffled. `seed` fixes the task (the
// prototypes), `stream` the samples drawn from it: a training set (stream 0) and a test set
// (stream 1) of one seed are the same task with independent samples. Same arguments -> same
// data.
Dataset make_synthetic(int64_t n, int classes, int channels, int size, uint64_t seed,
                       uint64_t stream = 0);

// Shard (spec.node, spec.local_rank) of data (contiguous block, remainder dropped).
Dataset shard(const Dataset& data, const ShardSpec& spec);

// Loads one shard of the training or test split. data_dir: the CIFAR-10 folder, or the
// Fashion-MNIST folder (empty: the Debian package's); seed: synthetic data only.
Dataset load_dataset(const DatasetSpec& spec, const std::string& data_dir, bool train,
                     const ShardSpec& shard_spec = {}, uint64_t seed = 0);

}  // namespace prunex
