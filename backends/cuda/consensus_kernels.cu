#include "backends/cuda/consensus_kernels.h"

#include <algorithm>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/grid_loop.h"
#include "engine/error.h"
#include "engine/residuals.h"

namespace prunex {

namespace {

constexpr int kSums = 11;  // the squared norms of add_intra (5) and add_inter (6)

__global__ void proximal_kernel(float* grad, const float* theta, const float* z_i, const float* u,
                                double rho1, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) {
    // CPU: d = double(theta) - z_i + u; grad = float(grad + rho1 * d).
    const double d =
        __dadd_rn(__dsub_rn(static_cast<double>(theta[k]), static_cast<double>(z_i[k])),
                  static_cast<double>(u[k]));
    grad[k] = static_cast<float>(__dadd_rn(static_cast<double>(grad[k]), __dmul_rn(rho1, d)));
  }
}

__global__ void update_u_kernel(float* u, const float* theta, const float* z_i, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) {
    u[k] = static_cast<float>(
        __dadd_rn(static_cast<double>(u[k]),
                  __dsub_rn(static_cast<double>(theta[k]), static_cast<double>(z_i[k]))));
  }
}

__global__ void rescale_kernel(float* x, double factor, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) x[k] = static_cast<float>(__dmul_rn(static_cast<double>(x[k]), factor));
}

__global__ void zero_pruned_kernel(float* x, const uint8_t* keep, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) if (!keep[k]) x[k] = 0.0f;
}

__device__ double sq(double d) {
  return __dmul_rn(d, d);
}
__device__ double diff(const float* a, const float* b, int64_t k) {
  return __dsub_rn(static_cast<double>(a[k]), static_cast<double>(b[k]));
}

__global__ void residual_kernel(const ResidualTile* tiles, const float* theta, const float* z_i,
                                const float* z_i_prev, const float* u, const float* z,
                                const float* z_prev, const float* v, double* partials) {
  const ResidualTile t = tiles[blockIdx.x];
  double a[kSums] = {};
  for (int64_t k = t.begin + threadIdx.x; k < t.end; k += blockDim.x) {
    a[0] = __dadd_rn(a[0], sq(diff(theta, z_i, k)));
    a[1] = __dadd_rn(a[1], sq(static_cast<double>(theta[k])));
    a[2] = __dadd_rn(a[2], sq(static_cast<double>(z_i[k])));
    a[3] = __dadd_rn(a[3], sq(diff(z_i, z_i_prev, k)));
    a[4] = __dadd_rn(a[4], sq(static_cast<double>(u[k])));
    if (z) {
      a[5] = __dadd_rn(a[5], sq(diff(z_i, z, k)));
      a[6] = __dadd_rn(a[6], sq(static_cast<double>(z_i[k])));
      a[7] = __dadd_rn(a[7], sq(static_cast<double>(z[k])));
      a[8] = __dadd_rn(a[8], sq(diff(z_i, z_prev, k)));
      a[9] = __dadd_rn(a[9], sq(diff(z, z_prev, k)));
      a[10] = __dadd_rn(a[10], sq(static_cast<double>(v[k])));
    }
  }
  __shared__ double warp_sums[kGridThreads / 32][kSums];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int f = 0; f < kSums; ++f) {
    double x = a[f];
    for (int off = 16; off > 0; off /= 2) x += __shfl_down_sync(0xffffffffu, x, off);
    if (lane == 0) warp_sums[warp][f] = x;
  }
  __syncthreads();
  if (threadIdx.x < kSums) {
    double x = 0;
    for (int w = 0; w < kGridThreads / 32; ++w) x += warp_sums[w][threadIdx.x];
    partials[int64_t(blockIdx.x) * kSums + threadIdx.x] = x;
  }
}

// One thread per (layer, field): that layer's tile partials in tile order, into sums.
__global__ void residual_layers_kernel(const int32_t* first_tile, int layers,
                                       const double* partials, bool inter, double* sums) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= int64_t(layers) * kSums) return;
  const int l = static_cast<int>(k / kSums), f = static_cast<int>(k % kSums);
  if (f >= 5 && !inter) return;
  double x = 0;
  for (int32_t t = first_tile[l]; t < first_tile[l + 1]; ++t)
    x = __dadd_rn(x, partials[int64_t(t) * kSums + f]);
  // Field positions in ResidualPartials (13 per layer; 5 and 12 are the counts).
  constexpr int kField[kSums] = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11};
  double& out = sums[int64_t(l) * ResidualPartials::kFields + kField[f]];
  out = __dadd_rn(out, x);
}

}  // namespace

void add_proximal_gpu(float* grad, const float* theta, const float* z_i, const float* u,
                      double rho1, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  proximal_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(grad, theta, z_i, u, rho1, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void update_u_gpu(float* u, const float* theta, const float* z_i, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  update_u_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(u, theta, z_i, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void rescale_gpu(float* x, double factor, int64_t n, cudaStream_t s) {
  if (n == 0 || factor == 1.0) return;
  rescale_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(x, factor, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void zero_pruned_gpu(float* x, const uint8_t* keep, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  zero_pruned_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(x, keep, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

std::vector<ResidualTile> residual_tiles(const std::vector<int64_t>& offset, int64_t elements) {
  PRUNEX_CHECK(elements > 0, "tile of ", elements, " elements");
  std::vector<ResidualTile> out;
  for (size_t l = 0; l + 1 < offset.size(); ++l)
    for (int64_t b = offset[l]; b < offset[l + 1]; b += elements)
      out.push_back({static_cast<int32_t>(l), b, std::min(b + elements, offset[l + 1])});
  return out;
}

std::vector<int32_t> residual_first_tiles(const std::vector<ResidualTile>& tiles, int layers) {
  std::vector<int32_t> first(static_cast<size_t>(layers) + 1, static_cast<int32_t>(tiles.size()));
  for (size_t t = tiles.size(); t-- > 0;) first[tiles[t].layer] = static_cast<int32_t>(t);
  // A layer without tiles (no elements) starts where the next one does.
  for (int l = layers - 1; l >= 0; --l)
    if (first[l] > first[l + 1]) first[l] = first[l + 1];
  return first;
}

void residual_sums_gpu(const ResidualTile* tiles, int tiles_n, const int32_t* first_tile,
                       int layers, const float* theta, const float* z_i, const float* z_i_prev,
                       const float* u, const float* z, const float* z_prev, const float* v,
                       double* partials, double* sums, cudaStream_t s) {
  if (tiles_n == 0) return;
  residual_kernel<<<static_cast<unsigned>(tiles_n), kGridThreads, 0, s>>>(
      tiles, theta, z_i, z_i_prev, u, z, z_prev, v, partials);
  PRUNEX_CUDA_CHECK_LAUNCH();
  const int64_t threads = int64_t(layers) * kSums;
  residual_layers_kernel<<<static_cast<unsigned>((threads + kGridThreads - 1) / kGridThreads),
                           kGridThreads, 0, s>>>(first_tile, layers, partials, z != nullptr, sums);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

}  // namespace prunex
