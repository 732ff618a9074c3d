// Masks on the NCCL path. NCCL has no bitwise-OR reduction, so the union of node masks
// (eq. 14) travels as one byte per group (0 or 1) for all pruned layers in one buffer and is
// all-reduced with MAX over uint8: for 0/1 bytes MAX is OR. This is 8x the bytes of
// ModelMask::to_bits(), but the mask is tiny next to the weights (ResNet-152: ~0.3 MB).
//
// The Communicator's generic ReduceOp::bor over arbitrary bytes is obtained the same way:
// each bit is expanded to a byte, MAX-reduced, and packed back (expand_bits / pack_bits, with
// CUDA kernels in backends/cuda/admm_kernels.cu matching these host versions). Test-only: the
// NCCL tests check the kernels and the union against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/mask.h"

namespace prunex {

// Bytes in the group form: for each pruned layer in layout order, keep_out, keep_in,
// keep_shape (the same order as ModelMask::to_bits, one byte per entry instead of one bit).
std::size_t mask_group_bytes(const ModelMask& mask);
std::vector<uint8_t> mask_to_group_bytes(const ModelMask& mask);
// Overwrites the pruned layers' masks from the group form (any nonzero byte = kept) and
// normalises them, as ModelMask::from_bits does.
void mask_from_group_bytes(ModelMask& mask, const uint8_t* bytes, std::size_t n);

// out[8*i + b] = bit b (LSB first) of in[i], as 0 or 1; out holds 8*n bytes.
void expand_bits(const uint8_t* in, std::size_t n, uint8_t* out);
// out[i] = OR over b of (in[8*i + b] != 0) << b; inverse of expand_bits for 0/1 bytes.
void pack_bits(const uint8_t* in, std::size_t n, uint8_t* out);

}  // namespace prunex
