// Return-code checks for the CUDA runtime: every call goes through a macro that throws
// prunex::CudaError naming the call, its file and line, and the runtime's message. NCCL's
// check (backends/nccl/nccl_env.h) throws the same error type.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace prunex {

// A CUDA or NCCL call failed (a runtime failure, exit 1; not the user's fault).
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
}  // namespace detail

// CUDA devices this process can use; 0 when there is no driver or no device (the runtime
// then returns an error and leaves its output untouched, so the count starts at 0).
int cuda_device_count();
// Why cuda_device_count() is 0, e.g. "cudaErrorNoDevice: no CUDA-capable device is
// detected"; empty when a device is present.
std::string cuda_unavailable_reason();

}  // namespace prunex

#define PRUNEX_CUDA_CHECK(call)                                                   \
  do {                                                                            \
    const cudaError_t prunex_err_ = (call);                                       \
    if (prunex_err_ != cudaSuccess)                                               \
      ::prunex::detail::throw_cuda_error(prunex_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: a bad launch configuration shows up here, not at the launch.
#define PRUNEX_CUDA_CHECK_LAUNCH() PRUNEX_CUDA_CHECK(cudaGetLastError())
