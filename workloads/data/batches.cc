#include "workloads/data/batches.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "engine/error.h"

namespace prunex {
namespace {

// Distinct streams for (seed, epoch) and for augmentation (splitmix64 finaliser).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<float> padding_fill(const Normalization& norm) {
  std::vector<float> fill;
  for (size_t c = 0; c < norm.mean.size(); ++c) fill.push_back(-norm.mean[c] / norm.std[c]);
  return fill;
}

torch::Tensor random_crop_flip(const torch::Tensor& images, int64_t padding,
                               const std::vector<float>& fill, at::Generator& gen) {
  PRUNEX_CHECK(images.dim() == 4 && padding >= 0);
  const int64_t b = images.size(0), c = images.size(1), h = images.size(2), w = images.size(3);
  PRUNEX_CHECK(fill.empty() || static_cast<int64_t>(fill.size()) == c);
  auto fill_t = fill.empty() ? torch::zeros({c}) : torch::tensor(fill);
  auto padded = fill_t.to(images.dtype())
                    .view({1, c, 1, 1})
                    .expand({b, c, h + 2 * padding, w + 2 * padding})
                    .clone();
  padded.narrow(2, padding, h).narrow(3, padding, w).copy_(images);
  const auto offsets = torch::randint(0, 2 * padding + 1, {b, 2}, gen, torch::kInt64);
  const auto flips = torch::randint(0, 2, {b}, gen, torch::kInt64);
  const auto off = offsets.accessor<int64_t, 2>();
  const auto flip = flips.accessor<int64_t, 1>();
  auto out = torch::empty_like(images);
  for (int64_t i = 0; i < b; ++i) {
    auto crop = padded[i].narrow(1, off[i][0], h).narrow(2, off[i][1], w);
    out[i].copy_(flip[i] ? crop.flip({2}) : crop);
  }
  return out;
}

BatchLoader::BatchLoader(Dataset data, BatchOptions options)
    : data_(std::move(data)),
      options_(std::move(options)),
      augment_gen_(at::detail::createCPUGenerator(mix(options_.seed ^ 0xa5a5a5a5ULL))) {
  PRUNEX_USAGE(options_.batch_size >= 1, "batch size must be >= 1, got ", options_.batch_size);
  PRUNEX_USAGE(data_.size() >= 1, "cannot batch an empty data set");
  start_epoch(0);
}

int64_t BatchLoader::batches_per_epoch() const {
  const int64_t n = data_.size(), bs = options_.batch_size;
  return options_.drop_last ? n / bs : (n + bs - 1) / bs;
}

void BatchLoader::start_epoch(int64_t epoch) {
  if (options_.shuffle) {
    auto gen = at::detail::createCPUGenerator(mix(options_.seed) ^ mix(uint64_t(epoch) + 1));
    order_ = torch::randperm(data_.size(), gen, torch::kInt64);
  } else {
    order_ = torch::arange(data_.size(), torch::kInt64);
  }
  cursor_ = 0;
}

void BatchLoader::seek(int64_t position) {
  PRUNEX_USAGE(position >= 0 && position <= data_.size(), "data position ", position,
               " outside an epoch of ", data_.size(), " samples");
  cursor_ = position;
}

std::optional<Batch> BatchLoader::next() {
  const int64_t n = data_.size();
  const int64_t take = std::min(options_.batch_size, n - cursor_);
  if (take <= 0 || (options_.drop_last && take < options_.batch_size)) return std::nullopt;
  // The order is host memory; the data may be on a GPU (then the batch is gathered there).
  const auto idx = order_.narrow(0, cursor_, take).to(data_.images.device());
  cursor_ += take;
  Batch batch{data_.images.index_select(0, idx), data_.labels.index_select(0, idx)};
  if (options_.augment)
    batch.images = random_crop_flip(batch.images, 4, options_.pad_fill, augment_gen_);
  return batch;
}

}  // namespace prunex
