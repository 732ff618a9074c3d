// Images as the files hold them: 8-bit pixels in (N, C, H, W) order and 8-bit labels. The
// readers produce this without LibTorch; dataset.h turns it into normalised tensors.
#pragma once

#include <cstdint>
#include <vector>

namespace prunex {

struct RawImages {
  int64_t count = 0, channels = 0, height = 0, width = 0;
  std::vector<uint8_t> pixels;  // count * channels * height * width, NCHW
  std::vector<uint8_t> labels;  // count

  int64_t image_bytes() const { return channels * height * width; }
};

}  // namespace prunex
