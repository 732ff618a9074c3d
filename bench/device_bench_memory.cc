// The collective bench's buffers in GPU memory (bench --backend nccl; CUDA builds only).
#if defined(PRUNEX_HAVE_NCCL)
#include <algorithm>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_handles.h"
#include "bench/collective_bench.h"

namespace prunex {
namespace {

class DeviceBenchMemory : public BenchMemory {
 public:
  std::shared_ptr<void> allocate(std::size_t bytes) override {
    auto mem = std::make_shared<DeviceMemory>(std::max<std::size_t>(bytes, 1));
    return std::shared_ptr<void>(mem, mem->get());
  }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    if (bytes) PRUNEX_CUDA_CHECK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    if (bytes) PRUNEX_CUDA_CHECK(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost));
  }
};

}  // namespace

std::unique_ptr<BenchMemory> device_bench_memory() {
  return std::make_unique<DeviceBenchMemory>();
}

}  // namespace prunex
#endif  // PRUNEX_HAVE_NCCL
