// The per-element and per-layer H-SADMM work that admm_kernels.h does not cover, for
// CudaConsensusMath: each kernel computes what engine/hsadmm_updates.h or residuals.h does
// on the CPU, with the same double arithmetic and explicitly rounded operations (equal bit
// for bit), except the residual sums, whose additions run in another order (equal to
// rounding, and the same on every run: no atomics). All data pointers are device pointers;
// calls enqueue on stream s.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace prunex {

// grad += rho1 * (theta - z_i + u)  (add_proximal_gradient).
void add_proximal_gpu(float* grad, const float* theta, const float* z_i, const float* u,
                      double rho1, int64_t n, cudaStream_t s);
// u += theta - z_i  (update_u; the flat variant, which has no v).
void update_u_gpu(float* u, const float* theta, const float* z_i, int64_t n, cudaStream_t s);
// x *= factor  (rescale_dual).
void rescale_gpu(float* x, double factor, int64_t n, cudaStream_t s);
// x[k] = 0 where keep[k] == 0 (apply_mask with one byte per element).
void zero_pruned_gpu(float* x, const uint8_t* keep, int64_t n, cudaStream_t s);

// A run of one layer's elements in the flat buffers: what one block of the residual kernel
// sums.
struct ResidualTile {
  int32_t layer = 0;
  int64_t begin = 0, end = 0;  // flat element positions
};
// Tiles of at most `elements` elements covering every layer; offset: each layer's first
// element, then the total.
std::vector<ResidualTile> residual_tiles(const std::vector<int64_t>& offset, int64_t elements);

// Each layer's first tile in `tiles` (which cover the layers in order), then the tile count:
// layers + 1 entries.
std::vector<int32_t> residual_first_tiles(const std::vector<ResidualTile>& tiles, int layers);
// Adds the squared norms of ResidualPartials::add_intra (and, with z non-null, add_inter) of
// every tile's elements to sums[layer * 13 + field] (the counts are the caller's).
// Deterministic: each tile's block writes its sums to partials (tiles_n * 11 doubles of
// scratch), then one thread per layer and field adds that layer's tiles in tile order, so
// two runs on the same data give the same bits (atomic additions would add in the order the
// blocks finish). first_tile: residual_first_tiles on the device.
void residual_sums_gpu(const ResidualTile* tiles, int tiles_n, const int32_t* first_tile,
                       int layers, const float* theta, const float* z_i, const float* z_i_prev,
                       const float* u, const float* z, const float* z_prev, const float* v,
                       double* partials, double* sums, cudaStream_t s);

}  // namespace prunex
