#include "backends/cuda/group_norms.h"

#include <algorithm>

#include "backends/cuda/cuda_check.h"
#include "engine/error.h"

namespace prunex {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = 64;  // filters summed by one block of the column kernels

__device__ double block_sum(double x) {
  __shared__ double partial[kThreads / 32];
  for (int off = 16; off > 0; off /= 2) x += __shfl_down_sync(0xffffffffu, x, off);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = x;
  __syncthreads();
  x = 0;
  if (warp == 0) {
    if (lane < kThreads / 32) x = partial[lane];
    for (int off = 16; off > 0; off /= 2) x += __shfl_down_sync(0xffffffffu, x, off);
  }
  return x;
}

__global__ void filter_norms_kernel(const float* w, int64_t row, double* norms) {
  const float* r = w + blockIdx.x * row;
  double acc = 0;
  for (int64_t i = threadIdx.x; i < row; i += blockDim.x) {
    const double x = r[i];
    acc += x * x;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) norms[blockIdx.x] = acc;
}

__global__ void column_norms_kernel(const float* w, int64_t out, int64_t row, int64_t k,
                                    const uint8_t* keep_out, const uint8_t* keep_in,
                                    double* norms) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= row) return;
  if (keep_in && !keep_in[j / k]) return;  // stays 0 from the memset
  const int64_t o0 = int64_t(blockIdx.y) * kRowsPerBlock;
  const int64_t o1 = o0 + kRowsPerBlock < out ? o0 + kRowsPerBlock : out;
  double acc = 0;
  for (int64_t o = o0; o < o1; ++o) {
    if (keep_out && !keep_out[o]) continue;
    const double x = w[o * row + j];
    acc += x * x;
  }
  atomicAdd(norms + j, acc);
}

__global__ void sum_groups_kernel(const double* cols, int64_t groups, int64_t k, double* norms) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= groups) return;
  double acc = 0;
  for (int64_t p = 0; p < k; ++p) acc += cols[c * k + p];
  norms[c] = acc;
}

__global__ void apply_mask_kernel(float* w, int64_t n, int64_t row, int64_t k,
                                  const uint8_t* keep_out, const uint8_t* keep_in,
                                  const uint8_t* keep_shape) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = i / row, j = i - o * row;
    if (!(keep_out[o] && keep_in[j / k] && keep_shape[j])) w[i] = 0.0f;
  }
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 1 << 20));
}

void column_norms(const float* w, const LayerDims& d, const uint8_t* keep_out,
                  const uint8_t* keep_in, double* norms, cudaStream_t s) {
  const int64_t row = d.in * d.k;
  const int64_t ychunks = (d.out + kRowsPerBlock - 1) / kRowsPerBlock;
  PRUNEX_CHECK(ychunks <= 65535, "layer with ", d.out, " filters is too tall for the kernel");
  PRUNEX_CUDA_CHECK(cudaMemsetAsync(norms, 0, row * sizeof(double), s));
  const dim3 grid(static_cast<unsigned>((row + kThreads - 1) / kThreads),
                  static_cast<unsigned>(ychunks));
  column_norms_kernel<<<grid, kThreads, 0, s>>>(w, d.out, row, d.k, keep_out, keep_in, norms);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

}  // namespace

void filter_norms_gpu(const float* w, const LayerDims& d, double* norms, cudaStream_t s) {
  filter_norms_kernel<<<static_cast<unsigned>(d.out), kThreads, 0, s>>>(w, d.in * d.k, norms);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void shape_norms_gpu(const float* w, const LayerDims& d, const uint8_t* keep_out,
                     const uint8_t* keep_in, double* norms, cudaStream_t s) {
  column_norms(w, d, keep_out, keep_in, norms, s);
}

void channel_norms_gpu(const float* w, const LayerDims& d, const uint8_t* keep_out, double* scratch,
                       double* norms, cudaStream_t s) {
  column_norms(w, d, keep_out, nullptr, scratch, s);
  sum_groups_kernel<<<blocks_for(d.in), kThreads, 0, s>>>(scratch, d.in, d.k, norms);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void apply_group_mask_gpu(float* w, const LayerDims& d, const uint8_t* keep_out,
                          const uint8_t* keep_in, const uint8_t* keep_shape, cudaStream_t s) {
  apply_mask_kernel<<<blocks_for(d.numel()), kThreads, 0, s>>>(w, d.numel(), d.in * d.k, d.k,
                                                               keep_out, keep_in, keep_shape);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

}  // namespace prunex
