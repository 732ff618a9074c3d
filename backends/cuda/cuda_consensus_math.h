// ConsensusMath on the GPU (engine/consensus_math.h): state and buffers in device memory,
// the arithmetic in the kernels of admm_kernels.h, consensus_kernels.h, gpu_projection.h and
// gpu_compaction.h, on one stream of its own that every call synchronises before it returns.
// Runs on the current CUDA device (the one the NCCL communicator selected).
//
// Not on the device in this version: --wire-dtype bf16/f16 (set_plan refuses it with a
// UsageError). hsadmm-rail's padded buckets are copies of the kernels' buckets (one
// device-to-device copy each way per bucket). Per-bucket pack and unpack pack every bucket
// at bucket 0 and unpack every bucket at the last one (one launch each; the contract allows
// it), so --pipeline-buckets overlaps the buckets' all-reduces with each other only.
#pragma once

#include <memory>

#include "engine/consensus_math.h"

namespace prunex {

std::unique_ptr<ConsensusMath> make_cuda_consensus_math();

}  // namespace prunex
