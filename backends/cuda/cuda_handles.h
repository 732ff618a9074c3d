// RAII owners for CUDA streams, events and device memory. Move-only; destructors release
// without throwing (a failure while unwinding is not reported twice).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "engine/error.h"

namespace prunex {

class CudaStream {
 public:
  CudaStream();  // non-blocking with respect to the legacy default stream
  ~CudaStream();
  CudaStream(CudaStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return s_; }
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

class CudaEvent {
 public:
  explicit CudaEvent(bool timing = true);
  ~CudaEvent();
  CudaEvent(CudaEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t stream);
  void synchronize() const;
  bool query() const;  // true once the work before the record has finished
  // Seconds from `start` to this event (both recorded and complete).
  double seconds_since(const CudaEvent& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

// Untyped device allocation.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Typed device array with host copies in and out. Both are synchronous and go through the
// legacy stream: for setup and checks, not the hot path. Download does not wait for other
// streams: synchronise the stream that wrote the data first.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : mem_(n * sizeof(T)), n_(n) {}
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }

  T* data() const { return static_cast<T*>(mem_.get()); }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    PRUNEX_CHECK_EQ(n_, host.size(), "host vector of the wrong length");
    if (!n_) return;
    PRUNEX_CUDA_CHECK(cudaMemcpy(data(), host.data(), bytes(), cudaMemcpyHostToDevice));
    // A pageable upload may return before its DMA lands, and it runs on the legacy stream,
    // which non-blocking streams do not wait for: finish it before anyone reads the data.
    PRUNEX_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) PRUNEX_CUDA_CHECK(cudaMemcpy(host.data(), data(), bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  DeviceMemory mem_;
  std::size_t n_ = 0;
};

}  // namespace prunex
