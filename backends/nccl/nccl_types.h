// Mapping of the engine's element types and reductions onto NCCL's.
#pragma once

#include <nccl.h>

#include "engine/types.h"

namespace prunex {

ncclDataType_t nccl_type(DType t);
// sum, avg, max; bor has no NCCL counterpart (NcclCommunicator expands bits and uses max).
ncclRedOp_t nccl_op(ReduceOp op);

}  // namespace prunex
