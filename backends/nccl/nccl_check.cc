#include "backends/nccl/nccl_check.h"

#include <string>

#include "engine/error.h"

namespace prunex::detail {

void throw_nccl_error(ncclResult_t res, const char* call, const char* file, int line) {
  std::string extra;
  // ncclGetLastError names the cause (e.g. which rank failed) when NCCL recorded one.
  if (const char* last = ncclGetLastError(nullptr); last && *last)
    extra = std::string(" (") + last + ")";
  throw CudaError(concat(file, ":", line, ": ", call, " failed: NCCL error ", int(res), ": ",
                         ncclGetErrorString(res), extra));
}

}  // namespace prunex::detail
