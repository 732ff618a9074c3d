// Top-K's k, decided once for the live strategy and the plan builder: per tensor
// k = max(1, ceil(ratio x numel)); one rank's all-gather block holds the k values (f32) and
// their indices (i32) of every tensor.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/layer_layout.h"

namespace prunex {

inline int64_t topk_k(int64_t numel, double ratio) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(ratio * static_cast<double>(numel))));
}

inline int64_t topk_total_k(const ModelLayout& layout, double ratio) {
  int64_t total = 0;
  for (const auto& l : layout.layers) total += topk_k(l.numel(), ratio);
  return total;
}

// Bytes of one rank's all-gather block: total_k x (4 value + 4 index).
inline int64_t topk_block_bytes(int64_t total_k) {
  return total_k * 8;
}

}  // namespace prunex
