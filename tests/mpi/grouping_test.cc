// Node grouping: group ranks and sizes, which ranks share a node, bad groupings.
#include <stdexcept>

#include "backends/mpi/mpi_grouping.h"
#include "engine/error.h"
#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

using GroupingTest = GroupedTest;

TEST_P(GroupingTest, RanksAndSizesFollowConsecutiveBlocks) {
  EXPECT_EQ(comm_->world_rank(), world_rank());
  EXPECT_EQ(comm_->grouping().world_size, world_size());
  EXPECT_EQ(comm_->grouping().gpus_per_node, p_);
  EXPECT_EQ(comm_->node(), world_rank() / p_);
  EXPECT_EQ(comm_->local_rank(), world_rank() % p_);
  EXPECT_EQ(comm_->is_leader(), world_rank() % p_ == 0);
  for (Group g : kGroups) {
    if (!member(g)) continue;
    EXPECT_EQ(comm_->size(g), expected_size(g)) << group_name(g);
    EXPECT_EQ(comm_->rank(g), expected_rank(g)) << group_name(g);
  }
}

// Who is actually in each group, by gathering world ranks over it.
TEST_P(GroupingTest, GroupMembersAreTheExpectedWorldRanks) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g);
    const std::int32_t me = world_rank();
    std::vector<std::int32_t> members(n, -1);
    comm_->allgather(&me, members.data(), 1, DType::i32, g);
    for (int i = 0; i < n; ++i) {
      const int want = g == Group::world   ? i
                       : g == Group::intra ? (world_rank() / p_) * p_ + i
                       : g == Group::rail  ? i * p_ + world_rank() % p_
                                           : i * p_;
      EXPECT_EQ(members[i], want) << group_name(g) << " member " << i;
    }
  }
}

TEST_P(GroupingTest, InterGroupOnNonLeaderIsALogicError) {
  if (comm_->is_leader()) return;
  float x = 1;
  EXPECT_THROW(comm_->rank(Group::inter), std::logic_error);
  EXPECT_THROW(comm_->size(Group::inter), std::logic_error);
  EXPECT_THROW(comm_->allreduce(&x, 1, DType::f32, ReduceOp::sum, Group::inter), std::logic_error);
  EXPECT_THROW(comm_->broadcast(&x, 1, DType::f32, 0, Group::inter), std::logic_error);
  EXPECT_THROW(comm_->barrier(Group::inter), std::logic_error);
}

TEST_P(GroupingTest, BroadcastRootOutsideGroupIsALogicError) {
  float x = 0;
  EXPECT_THROW(comm_->broadcast(&x, 1, DType::f32, expected_size(Group::intra), Group::intra),
               std::logic_error);
  EXPECT_THROW(comm_->broadcast(&x, 1, DType::f32, -1, Group::world), std::logic_error);
}

PRUNEX_INSTANTIATE_GROUPINGS(GroupingTest);

TEST(Grouping, RealHostsGroupTheRanksSharingAHost) {
  auto comm = make_mpi_communicator(0);
  EXPECT_EQ(comm->grouping().gpus_per_node, ranks_on_my_host());
}

TEST(Grouping, NonMultipleRanksPerNodeIsAUsageError) {
  // 3 divides none of the tested world sizes (2, 4, 8); world + 1 divides no world.
  for (int p : {3, world_size() + 1}) {
    if (world_size() % p == 0) continue;
    try {
      make_mpi_communicator(p);
      ADD_FAILURE() << "P=" << p << " accepted for world size " << world_size();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("not a multiple"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(make_mpi_communicator(-1), UsageError);
}

// Layouts one host can't produce, checked on the gathered data the real grouping uses.
TEST(Grouping, HostLayoutsMustBeEqualConsecutiveBlocks) {
  EXPECT_EQ(ranks_per_host({0, 0, 2, 2}, {2, 2, 2, 2}), 2);
  EXPECT_EQ(ranks_per_host({0, 0, 0, 0}, {4, 4, 4, 4}), 4);
  EXPECT_EQ(ranks_per_host({0, 1, 2}, {1, 1, 1}), 1);
  // mpirun --map-by node: ranks 0 and 2 on one host, 1 and 3 on the other.
  EXPECT_THROW(ranks_per_host({0, 1, 0, 1}, {2, 2, 2, 2}), UsageError);
  // Three ranks on one host, one on another.
  EXPECT_THROW(ranks_per_host({0, 0, 0, 3}, {3, 3, 3, 1}), UsageError);
  // Equal sizes but the blocks are shifted.
  EXPECT_THROW(ranks_per_host({0, 1, 1, 3}, {1, 2, 2, 1}), UsageError);
}

}  // namespace
}  // namespace prunex::test
