// Fashion-MNIST in its distribution format: gzipped IDX files (LeCun's MNIST format),
// big-endian header, magic 2051 (0x00000803: unsigned bytes, 3 dims) for images and 2049
// (0x00000801, 1 dim) for labels. Uncompressed IDX files are read too (zlib passes them
// through).
#pragma once

#include <string>

#include "workloads/data/raw_images.h"

namespace prunex {

// Where the Debian package dataset-fashion-mnist installs the files (`dpkg -L`).
inline const char* default_fashion_mnist_dir() {
  return "/usr/share/datasets/fashion-mnist";
}

// Reads an images file and its labels file. A missing, truncated, wrong-magic or otherwise
// malformed file, or counts that disagree -> UsageError naming the file.
RawImages read_idx_images_and_labels(const std::string& images_path,
                                     const std::string& labels_path);

// {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz under dir (default_fashion_mnist_dir()
// when dir is empty). Labels must be 0..9.
RawImages read_fashion_mnist(const std::string& dir, bool train);

}  // namespace prunex
