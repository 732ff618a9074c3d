// NcclCommunicator on one rank (MPI singleton, one GPU): every collective and the mask
// union run for real through NCCL. Multi-rank behaviour needs several GPUs and mpirun/srun:
// scripts/gpu/gpu_check.sh and the SLURM templates run it; here those tests skip.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "backends/nccl/nccl_communicator.h"
#include "tests/nccl/nccl_fixtures.h"
#include "tests/nccl/nccl_mask_union.h"

namespace prunex {
namespace {

TEST(NcclCommunicator, WrongWorldSizeIsAUsageError) {
  PRUNEX_REQUIRE_DEVICE();
  testing::init_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_THROW(NcclCommunicator(MPI_COMM_WORLD, NodeGrouping{size + 1, 1}), UsageError);
  if (size % 2 == 1) {  // an odd world cannot be cut into nodes of 2
    EXPECT_THROW(NcclCommunicator(MPI_COMM_WORLD, NodeGrouping{size, 2}), UsageError);
  }
}

TEST(NcclCommunicator, OneRankCollectives) {
  PRUNEX_REQUIRE_DEVICE();
  testing::init_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) GTEST_SKIP() << "one-rank test run under " << size << " ranks";
  NcclCommunicator comm(MPI_COMM_WORLD, NodeGrouping{1, 1});
  for (Group g : {Group::world, Group::intra, Group::inter}) {
    EXPECT_EQ(comm.size(g), 1);
    EXPECT_EQ(comm.rank(g), 0);
  }
  // One rank: sum, avg and max leave data unchanged; bor goes through expand/max/pack.
  const std::vector<float> x = {1.5f, -2.0f, 3.25f};
  DeviceArray<float> xd(x);
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
    comm.allreduce(xd.data(), x.size(), DType::f32, op, Group::world);
    EXPECT_EQ(xd.download(), x) << reduce_op_name(op);
  }
  const std::vector<uint8_t> bytes = {0x00, 0xff, 0xa5, 0x3c, 0x01};
  DeviceArray<uint8_t> bd(bytes);
  comm.allreduce(bd.data(), bytes.size(), DType::u8, ReduceOp::bor, Group::inter);
  EXPECT_EQ(bd.download(), bytes);
  auto work = comm.allreduce_async(xd.data(), x.size(), DType::f32, ReduceOp::sum, Group::intra);
  work->wait();
  EXPECT_TRUE(work->is_completed());
  comm.broadcast(xd.data(), x.size(), DType::f32, 0, Group::world);
  DeviceArray<float> all(x.size());
  comm.allgather(xd.data(), all.data(), x.size(), DType::f32, Group::world);
  EXPECT_EQ(all.download(), x);
  comm.barrier(Group::world);
  // Calls are recorded with the bytes this rank contributed.
  ASSERT_EQ(comm.calls().size(), 8u);
  EXPECT_EQ(comm.calls()[0].bytes, 12u);
  EXPECT_EQ(comm.calls()[3].bytes, 5u);
  EXPECT_EQ(comm.calls()[3].group, Group::inter);
  for (const auto& c : comm.calls()) EXPECT_GE(c.seconds, 0.0);
  EXPECT_THROW(comm.allreduce(xd.data(), x.size(), DType::f32, ReduceOp::bor, Group::world),
               std::logic_error);
}

TEST(NcclCommunicator, OneRankMaskUnionKeepsTheMask) {
  PRUNEX_REQUIRE_DEVICE();
  testing::init_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) GTEST_SKIP() << "one-rank test run under " << size << " ranks";
  NcclCommunicator comm(MPI_COMM_WORLD, NodeGrouping{1, 1});
  std::mt19937 rng(31);
  const ModelLayout layout = testing::awkward_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
  const ModelMask want = testing::random_mask(layout, spec, 0.4, rng);
  ModelMask got = want;
  unite_masks_nccl(comm, got, Group::inter);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace prunex
