// NCCL's return-code check, as backends/mpi/mpi_env.h has MPI's: PRUNEX_NCCL_CHECK throws
// prunex::CudaError (backends/cuda/cuda_check.h) naming the call, its file and line, NCCL's
// message and, when NCCL recorded one, the cause (ncclGetLastError).
#pragma once

#include <nccl.h>

#include "backends/cuda/cuda_check.h"

namespace prunex::detail {
[[noreturn]] void throw_nccl_error(ncclResult_t res, const char* call, const char* file, int line);
}  // namespace prunex::detail

#define PRUNEX_NCCL_CHECK(call)                                                   \
  do {                                                                            \
    const ncclResult_t prunex_res_ = (call);                                      \
    if (prunex_res_ != ncclSuccess)                                               \
      ::prunex::detail::throw_nccl_error(prunex_res_, #call, __FILE__, __LINE__); \
  } while (0)
