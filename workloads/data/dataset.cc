#include "workloads/data/dataset.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/data/cifar10_reader.h"
#include "workloads/data/idx_reader.h"

namespace prunex {

Dataset to_dataset(const RawImages& raw, const Normalization& norm, int classes, ShardRange range) {
  PRUNEX_CHECK(range.begin >= 0 && range.begin <= range.end && range.end <= raw.count);
  PRUNEX_CHECK_EQ(static_cast<int64_t>(norm.mean.size()), raw.channels);
  PRUNEX_CHECK_EQ(static_cast<int64_t>(norm.std.size()), raw.channels);
  const int64_t n = range.size();
  const int64_t c = raw.channels;
  // from_blob does not copy; the float conversion below does, so raw may go away after.
  auto bytes =
      torch::from_blob(const_cast<uint8_t*>(raw.pixels.data()) + range.begin * raw.image_bytes(),
                       {n, c, raw.height, raw.width}, torch::kUInt8);
  auto mean = torch::tensor(norm.mean).view({1, c, 1, 1});
  auto std = torch::tensor(norm.std).view({1, c, 1, 1});
  Dataset d;
  d.images = (bytes.to(torch::kFloat32).div_(255.0f) - mean).div_(std).contiguous();
  d.labels =
      torch::from_blob(const_cast<uint8_t*>(raw.labels.data()) + range.begin, {n}, torch::kUInt8)
          .to(torch::kInt64);
  d.classes = classes;
  return d;
}

Dataset load_fashion_mnist(const std::string& dir, bool train, const ShardSpec& spec) {
  const RawImages raw = read_fashion_mnist(dir, train);
  return to_dataset(raw, fashion_mnist_normalization(), 10, shard_range(raw.count, spec));
}

Dataset load_cifar10(const std::string& dir, bool train, const ShardSpec& spec) {
  PRUNEX_USAGE(!dir.empty(), "CIFAR-10 needs --data-dir (the folder of data_batch_1.bin ..)");
  const RawImages raw = read_cifar10(dir, train);
  return to_dataset(raw, cifar10_normalization(), 10, shard_range(raw.count, spec));
}

Dataset make_synthetic(int64_t n, int classes, int channels, int size, uint64_t seed,
                       uint64_t stream) {
  PRUNEX_USAGE(n >= 1 && classes >= 2 && channels >= 1 && size >= 4,
               "synthetic data needs n >= 1, classes >= 2, channels >= 1, size >= 4; got n=", n,
               " classes=", classes, " channels=", channels, " size=", size);
  auto gen = at::detail::createCPUGenerator(seed);
  auto coarse = torch::randn({classes, channels, 4, 4}, gen);
  namespace F = torch::nn::functional;
  auto prototypes = F::interpolate(coarse, F::InterpolateFuncOptions()
                                               .size(std::vector<int64_t>{size, size})
                                               .mode(torch::kBilinear)
                                               .align_corners(false));
  // Samples come from their own generator so that streams of one task are independent.
  auto sample_gen = at::detail::createCPUGenerator(seed * 0x9e3779b97f4a7c15ULL + stream + 1);
  auto labels = torch::arange(n, torch::kInt64).remainder(classes);
  labels = labels.index_select(0, torch::randperm(n, sample_gen, torch::kInt64));
  Dataset d;
  d.images =
      prototypes.index_select(0, labels) + torch::randn({n, channels, size, size}, sample_gen);
  d.labels = labels;
  d.classes = classes;
  return d;
}

Dataset shard(const Dataset& data, const ShardSpec& spec) {
  const ShardRange r = shard_range(data.size(), spec);
  Dataset d;
  d.images = data.images.narrow(0, r.begin, r.size()).clone();
  d.labels = data.labels.narrow(0, r.begin, r.size()).clone();
  d.classes = data.classes;
  return d;
}

Dataset load_dataset(const DatasetSpec& spec, const std::string& data_dir, bool train,
                     const ShardSpec& shard_spec, uint64_t seed) {
  if (spec.name == "cifar10") return load_cifar10(data_dir, train, shard_spec);
  if (spec.name == "fashion-mnist") return load_fashion_mnist(data_dir, train, shard_spec);
  PRUNEX_USAGE(spec.name == "synthetic", "unknown data set '", spec.name, "'");
  const Dataset all = make_synthetic(train ? spec.train_samples : spec.test_samples, spec.classes,
                                     spec.channels, spec.image_size, seed, train ? 0 : 1);
  return shard(all, shard_spec);
}

}  // namespace prunex
