#include <cstring>

#include "engine/cgx_quantize.h"
#include "engine/pactrain.h"
#include "engine/peer_kernels.h"

namespace prunex {
namespace {

class HostPeerKernels final : public PeerKernels {
 public:
  SpaceMemory& memory() const override { return host_space(); }
  void cgx_quantize(const float* x, int64_t n, int bits, int bucket, bool stochastic, uint64_t seed,
                    uint8_t* out) override {
    prunex::cgx_quantize(x, n, bits, bucket, stochastic, seed, out);
  }
  void cgx_dequantize(const uint8_t* in, int64_t n, int bits, int bucket, float* out,
                      bool accumulate) override {
    prunex::cgx_dequantize(in, n, bits, bucket, out, accumulate);
  }
  void floats_to_wire(const float* x, int64_t n, uint8_t* out) override {
    std::memcpy(out, x, static_cast<std::size_t>(4 * n));
  }
  void floats_from_wire(const uint8_t* in, int64_t n, float* out, bool accumulate) override {
    for (int64_t i = 0; i < n; ++i) {  // copy, do not cast: any byte offset
      float v;
      std::memcpy(&v, in + 4 * i, 4);
      out[i] = accumulate ? out[i] + v : v;
    }
  }
  void ternarize(const float* x, int64_t n, float s, uint64_t seed, int8_t* out) override {
    prunex::ternarize(x, n, s, seed, out);
  }
};

}  // namespace

PeerKernels& host_peer_kernels() {
  static HostPeerKernels k;
  return k;
}

}  // namespace prunex
