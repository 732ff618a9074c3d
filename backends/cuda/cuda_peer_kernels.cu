#include "backends/cuda/cuda_peer_kernels.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_space.h"
#include "backends/cuda/grid_loop.h"
#include "engine/codec_math.h"
#include "engine/error.h"

namespace prunex {
namespace {

// LibTorch's stream (a macro for a cast pointer: not a constant expression).
inline cudaStream_t stream() {
  return cudaStreamLegacy;
}

using codec::load_float;
using codec::store_float;

// One block per max-min bucket (grid-strided): its (unit, min) metadata, as cgx_quantize:
// min and max of the bucket's values (exact in any order), NaN for both when any value is not
// finite; unit = (max - min) / top.
__global__ void cgx_metadata_kernel(const float* x, int64_t n, int bucket, uint32_t top,
                                    uint8_t* out) {
  __shared__ float s_min[kGridThreads], s_max[kGridThreads];
  __shared__ int s_finite[kGridThreads];
  const int64_t buckets = (n + bucket - 1) / bucket;
  for (int64_t b = blockIdx.x; b < buckets; b += gridDim.x) {
    const int64_t lo = b * bucket, hi = min(n, lo + bucket);
    float mn = x[lo], mx = x[lo];
    int finite = 1;
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
      const float v = x[i];
      finite &= isfinite(v) ? 1 : 0;
      mn = fminf(mn, v);
      mx = fmaxf(mx, v);
    }
    s_min[threadIdx.x] = mn;
    s_max[threadIdx.x] = mx;
    s_finite[threadIdx.x] = finite;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) {
        s_min[threadIdx.x] = fminf(s_min[threadIdx.x], s_min[threadIdx.x + w]);
        s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + w]);
        s_finite[threadIdx.x] &= s_finite[threadIdx.x + w];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      const bool ok = s_finite[0] != 0;
      const float lo_v = ok ? s_min[0] : __int_as_float(0x7fc00000);  // quiet NaN
      const float unit = ok ? codec::cgx_unit(lo_v, s_max[0], top) : lo_v;
      store_float(out + 8 * b, unit);
      store_float(out + 8 * b + 4, lo_v);
    }
    __syncthreads();
  }
}

// One thread per byte of the level stream: the bits of every level that falls in it (LSB
// first, level i at bits [i * bits, (i + 1) * bits)), each level by codec::cgx_level as
// cgx_quantize computes it.
__global__ void cgx_levels_kernel(const float* x, int64_t n, int bits, int bucket, uint32_t top,
                                  bool stochastic, uint64_t seed, const uint8_t* meta,
                                  uint8_t* levels) {
  const int64_t bytes = (n * bits + 7) / 8;
  PRUNEX_GRID_LOOP(j, bytes) {
    const int64_t first = 8 * j / bits, last = min(n - 1, (8 * j + 7) / bits);
    uint32_t byte = 0;
    for (int64_t i = first; i <= last; ++i) {
      const int64_t b = i / bucket;
      const float unit = load_float(meta + 8 * b), mn = load_float(meta + 8 * b + 4);
      const uint32_t q =
          codec::cgx_level(x[i], mn, unit, codec::cgx_offset(stochastic, seed, i), top);
      const int64_t shift = i * bits - 8 * j;
      byte |= (shift >= 0 ? q << shift : q >> -shift) & 0xffu;
    }
    levels[j] = static_cast<uint8_t>(byte);
  }
}

__global__ void cgx_dequantize_kernel(const uint8_t* in, int64_t n, int bits, int bucket,
                                      uint32_t top, float* out, bool accumulate) {
  const int64_t buckets = (n + bucket - 1) / bucket;
  const uint8_t* levels = in + 8 * buckets;
  PRUNEX_GRID_LOOP(i, n) {
    const int64_t b = i / bucket;
    const float unit = load_float(in + 8 * b), mn = load_float(in + 8 * b + 4);
    const float v = codec::cgx_value(mn, codec::cgx_level_at(levels, i, bits, top), unit);
    out[i] = accumulate ? codec::add(out[i], v) : v;
  }
}

__global__ void floats_from_wire_kernel(const uint8_t* in, int64_t n, float* out, bool accumulate) {
  PRUNEX_GRID_LOOP(i, n) {
    const float v = load_float(in + 4 * i);
    out[i] = accumulate ? codec::add(out[i], v) : v;
  }
}

// As ternarize.
__global__ void ternarize_kernel(const float* x, int64_t n, float s, uint64_t seed, int8_t* out) {
  PRUNEX_GRID_LOOP(i, n) {
    out[i] = codec::ternary(x[i], s, uniform01(seed, static_cast<uint64_t>(i)));
  }
}

class CudaPeerKernels final : public PeerKernels {
 public:
  CudaPeerKernels() : space_(make_device_space(stream())) {}
  SpaceMemory& memory() const override { return *space_; }

  void cgx_quantize(const float* x, int64_t n, int bits, int bucket, bool stochastic, uint64_t seed,
                    uint8_t* out) override {
    PRUNEX_CHECK(bits >= 1 && bits <= 8 && bucket >= 1, "cgx: bits ", bits, ", bucket ", bucket);
    if (n <= 0) return;
    const int64_t buckets = (n + bucket - 1) / bucket;
    const uint32_t top = (1u << bits) - 1;
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(buckets, 1 << 20));
    cgx_metadata_kernel<<<blocks, kGridThreads, 0, stream()>>>(x, n, bucket, top, out);
    PRUNEX_CUDA_CHECK_LAUNCH();
    const int64_t level_bytes = (n * bits + 7) / 8;
    cgx_levels_kernel<<<grid_blocks(level_bytes), kGridThreads, 0, stream()>>>(
        x, n, bits, bucket, top, stochastic, seed, out, out + 8 * buckets);
    PRUNEX_CUDA_CHECK_LAUNCH();
  }
  void cgx_dequantize(const uint8_t* in, int64_t n, int bits, int bucket, float* out,
                      bool accumulate) override {
    if (n <= 0) return;
    cgx_dequantize_kernel<<<grid_blocks(n), kGridThreads, 0, stream()>>>(
        in, n, bits, bucket, (1u << bits) - 1, out, accumulate);
    PRUNEX_CUDA_CHECK_LAUNCH();
  }
  void floats_to_wire(const float* x, int64_t n, uint8_t* out) override {
    if (n > 0)
      PRUNEX_CUDA_CHECK(
          cudaMemcpyAsync(out, x, static_cast<size_t>(4 * n), cudaMemcpyDeviceToDevice, stream()));
  }
  void floats_from_wire(const uint8_t* in, int64_t n, float* out, bool accumulate) override {
    if (n <= 0) return;
    floats_from_wire_kernel<<<grid_blocks(n), kGridThreads, 0, stream()>>>(in, n, out, accumulate);
    PRUNEX_CUDA_CHECK_LAUNCH();
  }
  void ternarize(const float* x, int64_t n, float s, uint64_t seed, int8_t* out) override {
    if (n <= 0) return;
    if (!(s > 0)) {
      PRUNEX_CUDA_CHECK(cudaMemsetAsync(out, 0, static_cast<size_t>(n), stream()));
      return;
    }
    ternarize_kernel<<<grid_blocks(n), kGridThreads, 0, stream()>>>(x, n, s, seed, out);
    PRUNEX_CUDA_CHECK_LAUNCH();
  }
  void sync() override { PRUNEX_CUDA_CHECK(cudaStreamSynchronize(stream())); }

 private:
  std::unique_ptr<SpaceMemory> space_;
};

}  // namespace

std::unique_ptr<PeerKernels> make_cuda_peer_kernels() {
  return std::make_unique<CudaPeerKernels>();
}

}  // namespace prunex
