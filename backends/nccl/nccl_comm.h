// RAII owner of an NCCL communicator: destroyed on scope exit, or aborted (for a failing
// job, where a destroy could wait on peers that will never arrive).
#pragma once

#include <nccl.h>

#include <utility>

namespace prunex {

class NcclComm {
 public:
  NcclComm() = default;
  explicit NcclComm(ncclComm_t c) : c_(c) {}
  ~NcclComm() {
    if (c_) ncclCommDestroy(c_);
  }
  NcclComm(NcclComm&& o) noexcept : c_(std::exchange(o.c_, nullptr)) {}
  NcclComm& operator=(NcclComm&& o) noexcept {
    if (this != &o) {
      if (c_) ncclCommDestroy(c_);
      c_ = std::exchange(o.c_, nullptr);
    }
    return *this;
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  ncclComm_t get() const { return c_; }
  explicit operator bool() const { return c_ != nullptr; }
  void abort() {
    if (c_) ncclCommAbort(std::exchange(c_, nullptr));
  }

 private:
  ncclComm_t c_ = nullptr;
};

}  // namespace prunex
