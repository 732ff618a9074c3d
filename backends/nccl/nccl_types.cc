#include "backends/nccl/nccl_types.h"

#include "engine/error.h"

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
