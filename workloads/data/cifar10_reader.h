// CIFAR-10 in its binary distribution format (cifar-10-binary.tar.gz): files of 3073-byte
// records, one label byte (0..9) then 1024 red, 1024 green and 1024 blue bytes, each plane
// row-major 32x32.
#pragma once

#include <string>

#include "workloads/data/raw_images.h"

namespace prunex {

// One .bin file. Missing, empty, truncated (size not a multiple of 3073) or with a label
// outside 0..9 -> UsageError naming the file.
RawImages read_cifar10_file(const std::string& path);

// data_batch_1.bin .. data_batch_5.bin (train) or test_batch.bin under dir, or under
// dir/cifar-10-batches-bin when dir holds the archive's extracted folder.
RawImages read_cifar10(const std::string& dir, bool train);

}  // namespace prunex
