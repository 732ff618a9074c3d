#include "backends/cuda/cuda_handles.h"

namespace prunex {

CudaStream::CudaStream() {
  PRUNEX_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
}

CudaStream::~CudaStream() {
  if (s_) cudaStreamDestroy(s_);
}

CudaStream& CudaStream::operator=(CudaStream&& o) noexcept {
  if (this != &o) {
    if (s_) cudaStreamDestroy(s_);
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

void CudaStream::synchronize() const {
  PRUNEX_CUDA_CHECK(cudaStreamSynchronize(s_));
}

CudaEvent::CudaEvent(bool timing) {
  PRUNEX_CUDA_CHECK(
      cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
}

CudaEvent::~CudaEvent() {
  if (e_) cudaEventDestroy(e_);
}

CudaEvent& CudaEvent::operator=(CudaEvent&& o) noexcept {
  if (this != &o) {
    if (e_) cudaEventDestroy(e_);
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}

void CudaEvent::record(cudaStream_t stream) {
  PRUNEX_CUDA_CHECK(cudaEventRecord(e_, stream));
}

void CudaEvent::synchronize() const {
  PRUNEX_CUDA_CHECK(cudaEventSynchronize(e_));
}

bool CudaEvent::query() const {
  const cudaError_t err = cudaEventQuery(e_);
  if (err == cudaErrorNotReady) return false;
  PRUNEX_CUDA_CHECK(err);
  return true;
}

double CudaEvent::seconds_since(const CudaEvent& start) const {
  float ms = 0;
  PRUNEX_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms * 1e-3;
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes) PRUNEX_CUDA_CHECK(cudaMalloc(&p_, bytes));
}

DeviceMemory::~DeviceMemory() {
  if (p_) cudaFree(p_);
}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    if (p_) cudaFree(p_);
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

}  // namespace prunex
