// Squared Frobenius norms of the projection's groups (section 3.2) on the GPU, accumulated
// in double like the CPU projection (engine/projection_*.cc), for one layer's weights w
// (device, row-major {out, in, k}, dims.numel() floats). Outputs are device double arrays.
// The optional keep masks (device bytes, nullable) stand for groups already projected away
// by an earlier projection of a composition: their elements count as zero, as they would
// after the CPU zeroed them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/sparsity_spec.h"

namespace prunex {

// norms[o] = sum over the row of filter o; dims.out entries.
void filter_norms_gpu(const float* w, const LayerDims& dims, double* norms, cudaStream_t s);

// norms[c*k + p] = sum over kept filters of column (c, p); dims.in * dims.k entries.
// Columns of channels with keep_in[c] == 0 get 0.
void shape_norms_gpu(const float* w, const LayerDims& dims, const uint8_t* keep_out,
                     const uint8_t* keep_in, double* norms, cudaStream_t s);

// norms[c] = sum over kept filters and the k positions of channel c; dims.in entries.
// scratch: dims.in * dims.k doubles.
void channel_norms_gpu(const float* w, const LayerDims& dims, const uint8_t* keep_out,
                       double* scratch, double* norms, cudaStream_t s);

// Zeroes the elements that the structured mask prunes: w[o, c, p] = 0 unless keep_out[o],
// keep_in[c] and keep_shape[c*k + p] (device bytes, all given).
void apply_group_mask_gpu(float* w, const LayerDims& dims, const uint8_t* keep_out,
                          const uint8_t* keep_in, const uint8_t* keep_shape, cudaStream_t s);

}  // namespace prunex
