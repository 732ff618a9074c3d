#include "backends/nccl/cuda_check.h"

#include "engine/error.h"

namespace prunex {

namespace detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(concat(file, ":", line, ": ", call, " failed: ", cudaGetErrorName(err), ": ",
                         cudaGetErrorString(err)));
}

void throw_nccl_error(ncclResult_t res, const char* call, const char* file, int line) {
  std::string extra;
  // ncclGetLastError names the cause (e.g. which rank failed) when NCCL recorded one.
  if (const char* last = ncclGetLastError(nullptr); last && *last)
    extra = std::string(" (") + last + ")";
  throw CudaError(concat(file, ":", line, ": ", call, " failed: NCCL error ", int(res), ": ",
                         ncclGetErrorString(res), extra));
}

}  // namespace detail

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return 0;
  }
  return n;
}

std::string cuda_unavailable_reason() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
  }
  return n > 0 ? std::string() : std::string("cudaGetDeviceCount found 0 devices");
}

}  // namespace prunex
