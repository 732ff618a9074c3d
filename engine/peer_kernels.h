// The peers' codec arithmetic, done where their buckets live: in host memory
// (host_peer_kernels, this folder: engine/cgx_quantize.h, engine/pactrain.h) or in GPU memory
// (backends/cuda/cuda_peer_kernels.h: the CUDA kernels, equal bit for bit). pactrain's and
// cgx's codecs (workloads/train/) and CGX's all-reduce (engine/cgx_allreduce.h) call them on
// buffers in their payload communicator's memory space, which must be this space.
//
// Calls enqueue their work and may return before it is done: a device implementation queues
// on the stream that LibTorch computes on and the NCCL communicator orders its collectives
// after (nccl_communicator.h), so a collective started after a call sees its results, and a
// call made after a collective's wait() sees the collective's. sync() waits on the host.
// Wire buffers are bytes: a piece may start at any byte (cgx_quantize.h).
#pragma once

#include <cstdint>

#include "engine/memory_space.h"

namespace prunex {

class PeerKernels {
 public:
  virtual ~PeerKernels() = default;
  // Where the buffers live: their allocation and copies (engine/memory_space.h).
  virtual SpaceMemory& memory() const = 0;

  // engine/cgx_quantize.h: cgx_quantize, cgx_dequantize.
  virtual void cgx_quantize(const float* x, int64_t n, int bits, int bucket, bool stochastic,
                            uint64_t seed, uint8_t* out) = 0;
  virtual void cgx_dequantize(const uint8_t* in, int64_t n, int bits, int bucket, float* out,
                              bool accumulate) = 0;
  // n fp32 values to and from a wire buffer at any byte: out[i] (+)= in[i].
  virtual void floats_to_wire(const float* x, int64_t n, uint8_t* out) = 0;
  virtual void floats_from_wire(const uint8_t* in, int64_t n, float* out, bool accumulate) = 0;
  // engine/pactrain.h: ternarize (s on the host).
  virtual void ternarize(const float* x, int64_t n, float s, uint64_t seed, int8_t* out) = 0;

  // Returns once every call so far is done.
  virtual void sync() {}
};

// Host memory: the functions of engine/cgx_quantize.h and engine/pactrain.h, done when they return.
PeerKernels& host_peer_kernels();

}  // namespace prunex
