// PeerKernels on the GPU (engine/peer_kernels.h): pactrain's ternary levels and CGX's
// quantization, dequantization and fp32 pieces as CUDA kernels, equal bit for bit to the host
// functions (engine/pactrain.h, engine/cgx_quantize.h: explicitly rounded operations, the same
// counter-based draws, engine/counter_rng.h). Every kernel runs on the legacy default stream,
// LibTorch's, which the NCCL communicator orders its collectives after; buffers come from a
// device space on that stream. Runs on the current CUDA device.
#pragma once

#include <memory>

#include "engine/peer_kernels.h"

namespace prunex {

std::unique_ptr<PeerKernels> make_cuda_peer_kernels();

}  // namespace prunex
