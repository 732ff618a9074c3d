// Channel (input) projection: groups of k columns of the GEMM view, one per input channel.
#include "engine/error.h"
#include "engine/projection.h"

namespace prunex {

void project_channels(float* w, const LayerDims& dims, int64_t keep, LayerMask& mask) {
  PRUNEX_CHECK_EQ(static_cast<int64_t>(mask.keep_in.size()), dims.in);
  const int64_t row = dims.in * dims.k;
  std::vector<double> norms(dims.in, 0.0);
  for (int64_t o = 0; o < dims.out; ++o)
    for (int64_t c = 0; c < dims.in; ++c)
      for (int64_t p = 0; p < dims.k; ++p) {
        const double x = w[o * row + c * dims.k + p];
        norms[c] += x * x;
      }
  std::vector<uint8_t> kept(dims.in, 0);
  for (int64_t c : top_groups(norms, keep)) kept[c] = 1;
  for (int64_t c = 0; c < dims.in; ++c)
    if (!kept[c]) mask.keep_in[c] = 0;
  for (int64_t o = 0; o < dims.out; ++o)
    for (int64_t c = 0; c < dims.in; ++c)
      if (!kept[c])
        for (int64_t p = 0; p < dims.k; ++p) w[o * row + c * dims.k + p] = 0.0f;
}

}  // namespace prunex
