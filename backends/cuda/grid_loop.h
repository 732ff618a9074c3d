// Launch geometry shared by the element-wise kernels (include from .cu files only): blocks of
// kGridThreads threads, at most 2^20 blocks, each thread striding over the grid.
#pragma once

#include <algorithm>
#include <cstdint>

namespace prunex {

constexpr int kGridThreads = 256;

inline unsigned grid_blocks(int64_t n) {
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>((n + kGridThreads - 1) / kGridThreads, 1 << 20)));
}

}  // namespace prunex

#define PRUNEX_GRID_LOOP(i, n)                                              \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)
