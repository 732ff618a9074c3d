#include "backends/cuda/device_space.h"

#include <algorithm>

#include "backends/cuda/cuda_check.h"

namespace prunex {
namespace {

class DeviceSpace final : public SpaceMemory {
 public:
  explicit DeviceSpace(cudaStream_t stream) : s_(stream) {}
  MemorySpace space() const override { return MemorySpace::device; }

  SpaceBuffer alloc(int64_t bytes) override {
    void* p = nullptr;
    const auto n = static_cast<size_t>(std::max<int64_t>(bytes, 1));
    PRUNEX_CUDA_CHECK(cudaMalloc(&p, n));
    PRUNEX_CUDA_CHECK(cudaMemsetAsync(p, 0, n, s_));
    sync();
    return SpaceBuffer(p, bytes, [](void* q) { cudaFree(q); });
  }
  void copy(void* dst, const void* src, int64_t bytes) override {
    if (bytes > 0 && dst != src) move(dst, src, bytes, cudaMemcpyDeviceToDevice);
  }
  void to_host(void* host, const void* src, int64_t bytes) override {
    if (bytes > 0) move(host, src, bytes, cudaMemcpyDeviceToHost);
  }
  void from_host(void* dst, const void* host, int64_t bytes) override {
    if (bytes > 0) move(dst, host, bytes, cudaMemcpyHostToDevice);
  }

 private:
  void move(void* dst, const void* src, int64_t bytes, cudaMemcpyKind kind) {
    PRUNEX_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), kind, s_));
    sync();
  }
  void sync() { PRUNEX_CUDA_CHECK(cudaStreamSynchronize(s_)); }
  cudaStream_t s_;
};

}  // namespace

std::unique_ptr<SpaceMemory> make_device_space(cudaStream_t stream) {
  return std::make_unique<DeviceSpace>(stream);
}

}  // namespace prunex
