// Mini-batches over an in-memory data set: a fresh seeded shuffle each epoch, and the CIFAR
// training augmentation (random 32x32 crop of the image zero-padded by 4, random horizontal
// flip; He et al. 2016, Sec. 4.2) applied per batch.
#pragma once

#include <ATen/core/Generator.h>
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "workloads/data/dataset.h"

namespace prunex {

struct Batch {
  torch::Tensor images;  // (B, C, H, W)
  torch::Tensor labels;  // (B)
};

struct BatchOptions {
  int64_t batch_size = 128;
  bool shuffle = true;
  bool drop_last = false;  // drop a last, smaller batch
  bool augment = false;    // random crop with padding 4 + horizontal flip
  uint64_t seed = 0;
  // Value of a padded pixel per channel, in normalised units; padding_fill(norm) gives the
  // normalised black that torchvision's pad-before-normalise produces.
  std::vector<float> pad_fill;
};

// (0 - mean) / std per channel.
std::vector<float> padding_fill(const Normalization& norm);

// Each image padded by `padding` on every side with fill[c], cropped back to H x W at a
// random offset, and flipped left-right with probability 1/2.
torch::Tensor random_crop_flip(const torch::Tensor& images, int64_t padding,
                               const std::vector<float>& fill, at::Generator& gen);

class BatchLoader {
 public:
  BatchLoader(Dataset data, BatchOptions options);

  int64_t batches_per_epoch() const;
  // Starts epoch `epoch`: its order depends only on (seed, epoch).
  void start_epoch(int64_t epoch);
  // The next batch of the epoch, or nothing at its end.
  std::optional<Batch> next();

  // Checkpoints: samples of the epoch already handed out, and a jump to such a position
  // (after start_epoch of the same epoch); the augmentation generator, to save and restore.
  int64_t position() const { return cursor_; }
  void seek(int64_t position);
  at::Generator& augment_generator() { return augment_gen_; }
  const at::Generator& augment_generator() const { return augment_gen_; }

 private:
  Dataset data_;
  BatchOptions options_;
  torch::Tensor order_;
  int64_t cursor_ = 0;
  at::Generator augment_gen_;
};

}  // namespace prunex
