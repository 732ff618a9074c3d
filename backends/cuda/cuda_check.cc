#include "backends/cuda/cuda_check.h"

#include "engine/error.h"

namespace prunex {

namespace detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(concat(file, ":", line, ": ", call, " failed: ", cudaGetErrorName(err), ": ",
                         cudaGetErrorString(err)));
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
