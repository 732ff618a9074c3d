#include "engine/pactrain.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/codec_math.h"
#include "engine/error.h"

namespace prunex {

int64_t pactrain_kept(const LayerInfo& l, double ratio) {
  const int64_t n = l.numel();
  if (!pactrain_prunable(l)) return n;
  return n - std::llround(ratio * static_cast<double>(n));
}

std::vector<int64_t> pactrain_compact_floats(const ModelLayout& layout, double ratio,
                                             int64_t cap_bytes) {
  std::vector<int64_t> out;
  for (const auto& b : ddp_buckets(layout, cap_bytes)) {
    int64_t kept = 0;
    for (int l : b.layers) kept += pactrain_kept(layout.layers[l], ratio);
    out.push_back(kept);
  }
  return out;
}

std::vector<int64_t> lowest_scores(const float* score, int64_t n, double ratio) {
  PRUNEX_CHECK(ratio >= 0 && ratio < 1, "prune ratio ", ratio, " outside [0, 1)");
  const int64_t k = std::llround(ratio * static_cast<double>(n));
  std::vector<int64_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t(0));
  auto less = [&](int64_t a, int64_t b) {
    return score[a] < score[b] || (score[a] == score[b] && a < b);
  };
  std::nth_element(idx.begin(), idx.begin() + k, idx.end(), less);
  idx.resize(static_cast<std::size_t>(k));
  std::sort(idx.begin(), idx.end());
  return idx;
}

float max_abs(const float* x, int64_t n) {
  float m = 0;
  for (int64_t i = 0; i < n; ++i) {
    // A NaN or Inf makes the scaler Inf on every rank (MAX), and Inf x 0 levels decode to NaN
    // everywhere: every rank's gradient check then stops all of them alike.
    if (!std::isfinite(x[i])) return std::numeric_limits<float>::infinity();
    m = std::max(m, std::fabs(x[i]));
  }
  return m;
}

void ternarize(const float* x, int64_t n, float s, uint64_t seed, int8_t* out) {
  if (!(s > 0)) {
    std::fill(out, out + n, int8_t(0));
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    out[i] = codec::ternary(x[i], s, uniform01(seed, static_cast<uint64_t>(i)));
}

}  // namespace prunex
