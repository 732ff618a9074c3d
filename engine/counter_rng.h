// A counter-based generator (splitmix64 of seed + i): the same stream on every platform and on
// the GPU, so the peers' stochastic codecs (engine/pactrain.h's ternarize, engine/cgx_quantize.h's
// stochastic rounding) draw the same numbers in host memory and in the CUDA kernels
// (backends/cuda/cuda_peer_kernels.h). Plain header: compiled by the host compiler and by nvcc.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PRUNEX_HOST_DEVICE __host__ __device__
#else
#define PRUNEX_HOST_DEVICE
#endif

namespace prunex {

// Uniform in [0, 1), the i-th draw of stream `seed`.
PRUNEX_HOST_DEVICE inline double uniform01(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace prunex
