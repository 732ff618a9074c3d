// The error macros and device detection: these run on any machine, GPU or not.
#include <gtest/gtest.h>

#include <string>

#include "backends/cuda/cuda_check.h"
#include "backends/nccl/nccl_env.h"

namespace prunex {
namespace {

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const CudaError& e) {
    return e.what();
  }
  return "(no CudaError thrown)";
}

int cuda_line = 0, nccl_line = 0;
void fail_cuda() {
  cuda_line = __LINE__ + 1;
  PRUNEX_CUDA_CHECK(cudaErrorInvalidValue);
}
void fail_nccl() {
  nccl_line = __LINE__ + 1;
  PRUNEX_NCCL_CHECK(ncclInvalidArgument);
}

TEST(CudaCheck, CudaErrorNamesCallFileLineAndError) {
  const std::string msg = message_of(fail_cuda);
  EXPECT_NE(msg.find("cuda_check_test.cc:" + std::to_string(cuda_line) + ":"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("cudaErrorInvalidValue"), std::string::npos) << msg;
  EXPECT_NE(msg.find("failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find(cudaGetErrorString(cudaErrorInvalidValue)), std::string::npos) << msg;
}

TEST(CudaCheck, NcclErrorNamesCallFileLineAndError) {
  const std::string msg = message_of(fail_nccl);
  EXPECT_NE(msg.find("cuda_check_test.cc:" + std::to_string(nccl_line) + ":"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("ncclInvalidArgument"), std::string::npos) << msg;
  EXPECT_NE(msg.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << msg;
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(PRUNEX_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(PRUNEX_NCCL_CHECK(ncclSuccess));
}

TEST(CudaCheck, CudaErrorIsARuntimeFailureNotAUsageError) {
  EXPECT_THROW(PRUNEX_CUDA_CHECK(cudaErrorMemoryAllocation), std::runtime_error);
}

// Without a driver cudaGetDeviceCount fails and leaves its argument alone: the count must
// still be 0, with a reason; with devices there is no reason.
TEST(DeviceCount, ZeroExactlyWhenAReasonIsGiven) {
  const int n = cuda_device_count();
  EXPECT_GE(n, 0);
  EXPECT_EQ(n == 0, !cuda_unavailable_reason().empty()) << cuda_unavailable_reason();
  EXPECT_EQ(cuda_device_count(), n);  // asking twice gives the same answer
}

TEST(NcclTypes, ElementSizesAgreeWithTheEngine) {
  const DType all[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::u8};
  for (DType t : all) {
    const ncclDataType_t n = nccl_type(t);
    const std::size_t size = (n == ncclFloat64 || n == ncclInt64 || n == ncclUint64) ? 8
                             : (n == ncclUint8 || n == ncclInt8)                     ? 1
                                                                                     : 4;
    EXPECT_EQ(size, dtype_size(t)) << dtype_name(t);
  }
  EXPECT_EQ(nccl_type(DType::f32), ncclFloat32);
  EXPECT_EQ(nccl_type(DType::u8), ncclUint8);
}

TEST(NcclTypes, BitwiseOrHasNoNcclOperator) {
  EXPECT_EQ(nccl_op(ReduceOp::max), ncclMax);
  EXPECT_EQ(nccl_op(ReduceOp::avg), ncclAvg);
  EXPECT_THROW(nccl_op(ReduceOp::bor), std::logic_error);
}

}  // namespace
}  // namespace prunex
