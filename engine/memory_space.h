// Buffers in one memory space (host or GPU) and the copies between it and the host, decided
// once for everything that keeps data where its communicator wants it: the consensus math's
// state (engine/consensus_math.h), the collective bench's buffers (bench/collective_bench.h)
// and the host-staged communicator's device copies (backends/nccl/host_staged_communicator.h).
// Host memory: host_space() (this folder); GPU memory: make_device_space()
// (backends/cuda/device_space.h).
#pragma once

#include <cstdint>
#include <utility>

namespace prunex {

// Where a communicator's buffers live (Communicator::memory_space()).
enum class MemorySpace { host, device };

// Bytes in one memory space, released by the function that allocated them.
class SpaceBuffer {
 public:
  using Release = void (*)(void*);
  SpaceBuffer() = default;
  SpaceBuffer(void* p, int64_t bytes, Release release) : p_(p), bytes_(bytes), release_(release) {}
  ~SpaceBuffer() { reset(); }
  SpaceBuffer(SpaceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)),
        bytes_(std::exchange(o.bytes_, 0)),
        release_(o.release_) {}
  SpaceBuffer& operator=(SpaceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      release_ = o.release_;
    }
    return *this;
  }
  SpaceBuffer(const SpaceBuffer&) = delete;
  SpaceBuffer& operator=(const SpaceBuffer&) = delete;

  template <typename T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  int64_t bytes() const { return bytes_; }

 private:
  void reset() {
    if (p_ && release_) release_(p_);
    p_ = nullptr;
  }
  void* p_ = nullptr;
  int64_t bytes_ = 0;
  Release release_ = nullptr;
};

class SpaceMemory {
 public:
  virtual ~SpaceMemory() = default;
  virtual MemorySpace space() const = 0;
  // `bytes` zeroed bytes of this space (at least one is allocated, so the pointer is valid).
  virtual SpaceBuffer alloc(int64_t bytes) = 0;
  // Copies inside the space and between it and the host. Each returns once the bytes are in
  // place (a device implementation synchronises its stream), so host timers measure them.
  virtual void copy(void* dst, const void* src, int64_t bytes) = 0;
  virtual void to_host(void* host, const void* src, int64_t bytes) = 0;
  virtual void from_host(void* dst, const void* host, int64_t bytes) = 0;
};

// Host memory: calloc'd buffers, memmove copies.
SpaceMemory& host_space();

}  // namespace prunex
