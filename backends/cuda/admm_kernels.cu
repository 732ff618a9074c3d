#include "backends/cuda/admm_kernels.h"

#include <algorithm>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/grid_loop.h"
#include "engine/error.h"

namespace prunex {

namespace {

__global__ void candidate_kernel(const float* sum, const float* z, const float* v,
                                 const uint8_t* mask, double a, double b, float* out, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) {
    if (mask && !mask[k]) {
      out[k] = 0.0f;
      continue;
    }
    // CPU: a * sum + b * (double(z) - v), each operation rounded on its own.
    const double d = __dsub_rn(static_cast<double>(z[k]), static_cast<double>(v[k]));
    const double c = __dadd_rn(__dmul_rn(a, static_cast<double>(sum[k])), __dmul_rn(b, d));
    out[k] = static_cast<float>(c);
  }
}

__global__ void dual_kernel(float* u, float* v, const float* theta, const float* z_i,
                            const float* z, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) {
    const double zi = z_i[k];
    u[k] = static_cast<float>(
        __dadd_rn(static_cast<double>(u[k]), __dsub_rn(static_cast<double>(theta[k]), zi)));
    v[k] = static_cast<float>(
        __dadd_rn(static_cast<double>(v[k]), __dsub_rn(zi, static_cast<double>(z[k]))));
  }
}

__global__ void add_kernel(const float* x, const float* y, float* out, int64_t n) {
  PRUNEX_GRID_LOOP(k, n) out[k] = __fadd_rn(x[k], y[k]);
}

__global__ void expand_bits_kernel(const uint8_t* in, int64_t n, uint8_t* out) {
  PRUNEX_GRID_LOOP(i, 8 * n) out[i] = (in[i / 8] >> (i % 8)) & 1u;
}

__global__ void pack_bits_kernel(const uint8_t* in, int64_t n, uint8_t* out) {
  PRUNEX_GRID_LOOP(i, n) {
    unsigned x = 0;
    for (int b = 0; b < 8; ++b) x |= (in[8 * i + b] != 0 ? 1u : 0u) << b;
    out[i] = static_cast<uint8_t>(x);
  }
}

}  // namespace

void node_candidate_gpu(const float* sum_theta_plus_u, const float* z, const float* v_i,
                        const uint8_t* mask, const CandidateParams& p, float* out, int64_t n,
                        cudaStream_t s) {
  const double gamma = candidate_gamma(p);
  PRUNEX_CHECK(gamma > 0, "gamma ", gamma);
  if (n == 0) return;
  candidate_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(sum_theta_plus_u, z, v_i, mask,
                                                           p.rho1 / gamma, p.rho2 / gamma, out, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void dual_updates_gpu(float* u, float* v, const float* theta, const float* z_i, const float* z,
                      int64_t n, cudaStream_t s) {
  if (n == 0) return;
  dual_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(u, v, theta, z_i, z, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void theta_plus_u_gpu(const float* theta, const float* u, float* buf, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  add_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(theta, u, buf, n);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void expand_bits_gpu(const uint8_t* in, int64_t n, uint8_t* out, cudaStream_t s) {
  if (n == 0) return;
  expand_bits_kernel<<<grid_blocks(8 * n), kGridThreads, 0, s>>>(in, n, out);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void pack_bits_gpu(const uint8_t* in, int64_t n, uint8_t* out, cudaStream_t s) {
  if (n == 0) return;
  pack_bits_kernel<<<grid_blocks(n), kGridThreads, 0, s>>>(in, n, out);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

}  // namespace prunex
