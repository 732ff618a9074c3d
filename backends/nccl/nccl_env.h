// NCCL as backends/mpi/mpi_env.h has MPI: communicators as RAII (NcclComm: destroyed on scope
// exit, or aborted for a failing job, where a destroy could wait on peers that will never
// arrive), the return-code check (PRUNEX_NCCL_CHECK throws prunex::CudaError naming the call,
// its file and line, NCCL's message and, when NCCL recorded one, the cause), and the mapping
// of the engine's element types and reductions onto NCCL's.
#pragma once

#include <nccl.h>

#include <utility>

#include "backends/cuda/cuda_check.h"
#include "engine/types.h"

namespace prunex::detail {
[[noreturn]] void throw_nccl_error(ncclResult_t res, const char* call, const char* file, int line);
}  // namespace prunex::detail

#define PRUNEX_NCCL_CHECK(call)                                                   \
  do {                                                                            \
    const ncclResult_t prunex_res_ = (call);                                      \
    if (prunex_res_ != ncclSuccess)                                               \
      ::prunex::detail::throw_nccl_error(prunex_res_, #call, __FILE__, __LINE__); \
  } while (0)

namespace prunex {

ncclDataType_t nccl_type(DType t);
// sum, avg, max; bor has no NCCL counterpart (NcclCommunicator expands bits and uses max).
ncclRedOp_t nccl_op(ReduceOp op);

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
