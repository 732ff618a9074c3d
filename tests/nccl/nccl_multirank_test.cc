// NcclCommunicator across ranks, checked against closed forms: run the test binary under
// mpirun/srun with one GPU per rank, e.g.
//   mpirun -np 4 build/bin/test_nccl --gtest_filter='NcclMultiRank.*'
// (scripts/gpu/gpu_check.sh does so when it sees two GPUs or more). Alone, or without enough
// GPUs on the host, these tests skip and say why.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "backends/nccl/nccl_communicator.h"
#include "tests/nccl/nccl_fixtures.h"
#include "tests/nccl/nccl_mask_union.h"

namespace prunex {
namespace {

#define PRUNEX_REQUIRE_MULTIRANK()                    \
  do {                                                \
    const std::string why = testing::why_not_nccl(2); \
    if (!why.empty()) GTEST_SKIP() << why;            \
  } while (0)

std::vector<NodeGrouping> groupings(int size) {
  std::vector<NodeGrouping> g = {{size, 1}, {size, size}};  // all nodes of one; one node
  if (size % 2 == 0 && size > 2) g.push_back({size, 2});
  return g;
}

TEST(NcclMultiRank, AllReduceSumAvgMaxBorOverEachGroup) {
  PRUNEX_REQUIRE_MULTIRANK();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const NodeGrouping& ng : groupings(size)) {
    SCOPED_TRACE(::testing::Message() << "gpus_per_node " << ng.gpus_per_node);
    NcclCommunicator comm(MPI_COMM_WORLD, ng);
    const int r = comm.world_rank();
    const int n_elems = 1001;  // odd, not a multiple of anything NCCL likes
    for (Group g : {Group::world, Group::intra, Group::inter}) {
      if (g == Group::inter && !comm.is_leader()) continue;
      // Members of the group and their world ranks.
      std::vector<int> members;
      for (int w = 0; w < size; ++w) {
        const bool in = g == Group::world || (g == Group::intra && ng.node_of(w) == comm.node()) ||
                        (g == Group::inter && ng.is_leader(w));
        if (in) members.push_back(w);
      }
      ASSERT_EQ(comm.size(g), static_cast<int>(members.size()));
      std::vector<double> x(n_elems);
      for (int i = 0; i < n_elems; ++i) x[i] = r * 1000.0 + i;
      DeviceArray<double> xd(x);
      comm.allreduce(xd.data(), x.size(), DType::f64, ReduceOp::sum, g);
      const auto sum = xd.download();
      double rank_sum = 0;
      for (int w : members) rank_sum += w;
      for (int i = 0; i < n_elems; ++i)
        ASSERT_EQ(sum[i], rank_sum * 1000.0 + members.size() * double(i))
            << group_name(g) << " " << i;
      xd.upload(x);
      comm.allreduce(xd.data(), x.size(), DType::f64, ReduceOp::max, g);
      EXPECT_EQ(xd.download()[7], members.back() * 1000.0 + 7);
      // bor: rank w sets bit (w % 8) of every byte.
      std::vector<uint8_t> bits(13, uint8_t(1u << (r % 8)));
      DeviceArray<uint8_t> bd(bits);
      comm.allreduce(bd.data(), bits.size(), DType::u8, ReduceOp::bor, g);
      unsigned want = 0;
      for (int w : members) want |= 1u << (w % 8);
      for (uint8_t b : bd.download()) ASSERT_EQ(b, want);
    }
  }
}

TEST(NcclMultiRank, BroadcastAllgatherAsyncAndMaskUnion) {
  PRUNEX_REQUIRE_MULTIRANK();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  NcclCommunicator comm(MPI_COMM_WORLD, NodeGrouping{size, 1});
  const int r = comm.world_rank();
  std::vector<float> x = {float(r), float(r) + 0.5f, -float(r)};
  DeviceArray<float> xd(x);
  comm.broadcast(xd.data(), x.size(), DType::f32, size - 1, Group::world);
  EXPECT_EQ(xd.download(), (std::vector<float>{float(size - 1), size - 0.5f, -float(size - 1)}));

  DeviceArray<int32_t> mine(std::vector<int32_t>{r, 10 * r});
  DeviceArray<int32_t> all(2 * size);
  comm.allgather(mine.data(), all.data(), 2, DType::i32, Group::world);
  const auto got = all.download();
  for (int w = 0; w < size; ++w) {
    EXPECT_EQ(got[2 * w], w);
    EXPECT_EQ(got[2 * w + 1], 10 * w);
  }

  DeviceArray<float> ad(std::vector<float>(257, 1.0f));
  auto work = comm.allreduce_async(ad.data(), 257, DType::f32, ReduceOp::avg, Group::world);
  work->wait();
  EXPECT_TRUE(work->is_completed());
  EXPECT_EQ(ad.download()[256], 1.0f);

  // Each rank's mask from its own seed; every rank can rebuild all of them and unite.
  const ModelLayout layout = testing::awkward_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
  ModelMask want;
  ModelMask mine_mask;
  for (int w = 0; w < size; ++w) {
    std::mt19937 rng(100 + w);
    ModelMask m = testing::random_mask(layout, spec, 0.3, rng);
    if (w == r) mine_mask = m;
    if (w == 0)
      want = m;
    else
      want.unite(m);
  }
  for (auto& m : want.layers()) m.normalise();
  unite_masks_nccl(comm, mine_mask, Group::world);
  EXPECT_EQ(mine_mask, want);
  comm.barrier(Group::world);
}

}  // namespace
}  // namespace prunex
