// Per-channel normalisation constants, x' = (x / 255 - mean) / std, with where they come from.
#pragma once

#include <vector>

namespace prunex {

struct Normalization {
  std::vector<float> mean, std;
  const char* source = "";
};

// CIFAR-10: per-channel mean and standard deviation of all pixels of the 50,000 training
// images (Krizhevsky 2009 data; the values used by most CIFAR-10 training recipes, e.g.
// 0.4914/0.4822/0.4465 and 0.2470/0.2435/0.2616), taken as published.
inline Normalization cifar10_normalization() {
  return {{0.4914f, 0.4822f, 0.4465f},
          {0.2470f, 0.2435f, 0.2616f},
          "CIFAR-10 training-set per-channel pixel mean/std (commonly used values)"};
}

// Fashion-MNIST: mean and standard deviation of all pixels of the 60,000 training images,
// computed here from train-images-idx3-ubyte.gz of the Debian package dataset-fashion-mnist
// (mean 0.2860406, std 0.3530242 over 47,040,000 pixels; tests/torch/data_readers_test.cc
// recomputes them from the package when it is installed).
inline Normalization fashion_mnist_normalization() {
  return {{0.2860406f}, {0.3530242f}, "Fashion-MNIST training-set pixel mean/std (computed)"};
}

}  // namespace prunex
