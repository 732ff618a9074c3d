// Filter (output) projection: rows of the GEMM view {out} x {in * k}.
#include <algorithm>

#include "engine/error.h"
#include "engine/projection.h"

namespace prunex {

void project_filters(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask) {
  PRUNEX_CHECK_EQ(static_cast<int64_t>(mask.keep_out.size()), dims.out);
  const int64_t row = dims.in * dims.k;
  std::vector<double> norms(dims.out, 0.0);
  for (int64_t o = 0; o < dims.out; ++o) {
    double s = 0.0;
    for (int64_t i = 0; i < row; ++i) s += double(w[o * row + i]) * double(w[o * row + i]);
    norms[o] = s;
  }
  std::vector<uint8_t> kept(dims.out, 0);
  for (int64_t o : top_groups(norms, keep)) kept[o] = 1;
  for (int64_t o = 0; o < dims.out; ++o) {
    if (kept[o]) continue;
    std::fill(w + o * row, w + (o + 1) * row, 0.0f);
    mask.keep_out[o] = 0;
  }
}

}  // namespace prunex
