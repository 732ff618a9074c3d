#include "backends/nccl/nccl_env.h"

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

namespace prunex {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::f32:
      return ncclFloat32;
    case DType::f64:
      return ncclFloat64;
    case DType::i32:
      return ncclInt32;
    case DType::i64:
      return ncclInt64;
    case DType::u8:
      return ncclUint8;
    case DType::i8:
      return ncclInt8;
    case DType::bf16:
      return ncclBfloat16;
    case DType::f16:
      return ncclFloat16;
  }
  PRUNEX_CHECK(false, "unknown dtype");
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return ncclSum;
    case ReduceOp::avg:
      return ncclAvg;
    case ReduceOp::max:
      return ncclMax;
    case ReduceOp::bor:
      break;
  }
  PRUNEX_CHECK(false, "NCCL has no bitwise-or reduction; expand bits and use max");
  return ncclSum;
}

}  // namespace prunex
