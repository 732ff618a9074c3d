// Shape projection: single columns (input channel, kernel position) of the GEMM view.
#include "engine/error.h"
#include "engine/projection.h"

namespace prunex {

void project_shapes(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask) {
  const int64_t row = dims.in * dims.k;
  PRUNEX_CHECK_EQ(static_cast<int64_t>(mask.keep_shape.size()), row);
  std::vector<double> norms(row, 0.0);
  for (int64_t o = 0; o < dims.out; ++o)
    for (int64_t j = 0; j < row; ++j) norms[j] += double(w[o * row + j]) * double(w[o * row + j]);
  std::vector<uint8_t> kept(row, 0);
  for (int64_t j : top_groups(norms, keep)) kept[j] = 1;
  for (int64_t j = 0; j < row; ++j)
    if (!kept[j]) mask.keep_shape[j] = 0;
  for (int64_t o = 0; o < dims.out; ++o)
    for (int64_t j = 0; j < row; ++j)
      if (!kept[j]) w[o * row + j] = 0.0f;
  mask.normalise();  // a channel with no kept column is a pruned channel
}

}  // namespace prunex
