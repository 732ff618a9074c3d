// H-SADMM per-element updates on the GPU, fused where that saves passes over memory. Each
// equals the composition of engine/hsadmm_updates.h's CPU functions bit for bit: the same
// double arithmetic in the same order, with explicitly rounded operations so that nvcc
// cannot contract them into FMAs the CPU does not use. All pointers are device pointers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/hsadmm_updates.h"

namespace prunex {

// Eq. (9) then Algorithm 1 line 11 in one pass (node_candidate + apply_mask):
//   out = mask[k] ? (rho1 * s[k] + rho2 * (z[k] - v_i[k])) / gamma : 0.
// mask: one byte per element, nullable (no masking, i.e. before the masks freeze). out may
// alias s.
void node_candidate_gpu(const float* sum_theta_plus_u, const float* z, const float* v_i,
                        const uint8_t* mask, const CandidateParams& p, float* out, int64_t n,
                        cudaStream_t s);

// Eqs. (12) and (13) in one pass (update_u + update_v): reads z_i once for both duals.
//   u += theta - z_i;  v += z_i - z.
void dual_updates_gpu(float* u, float* v, const float* theta, const float* z_i, const float* z,
                      int64_t n, cudaStream_t s);

// Algorithm 1 line 6 (theta_plus_u): buf = theta + u; buf may alias either.
void theta_plus_u_gpu(const float* theta, const float* u, float* buf, int64_t n, cudaStream_t s);

// Device-side bit expansion for ReduceOp::bor (see tests/nccl/mask_bytes.h): out holds 8n bytes.
void expand_bits_gpu(const uint8_t* in, int64_t n, uint8_t* out, cudaStream_t s);
void pack_bits_gpu(const uint8_t* in, int64_t n, uint8_t* out, cudaStream_t s);

}  // namespace prunex
