// tier_bytes: each tier's payload summed by hand; a tier whose groups have one member
// carries nothing (a 1-node run has no inter-node bytes, a 1-GPU run no world bytes).
#include "engine/tier_bytes.h"

#include <gtest/gtest.h>

namespace prunex {
namespace {

std::vector<CallRecord> calls() {
  // One of each: intra 100 B, inter 40 B, world 7 B, and a second intra call of 1 B.
  return {{CollectiveOp::allreduce, Group::intra, DType::f32, 100, 0},
          {CollectiveOp::allreduce, Group::inter, DType::f32, 40, 0},
          {CollectiveOp::broadcast, Group::world, DType::f32, 7, 0},
          {CollectiveOp::allreduce, Group::intra, DType::f32, 1, 0}};
}

TEST(TierBytes, SumsEachTierOnTwoNodesOfTwo) {
  const TierBytes b = tier_bytes(calls(), Strategy::hsadmm, NodeGrouping{4, 2});
  EXPECT_EQ(b.intra, 101);
  EXPECT_EQ(b.inter, 40);
  EXPECT_EQ(b.world, 7);
}

TEST(TierBytes, OneMemberTiersCarryNothing) {
  // 1 node x 2 GPUs: no inter tier (its group is the leader alone).
  const TierBytes one_node = tier_bytes(calls(), Strategy::hsadmm, NodeGrouping{2, 2});
  EXPECT_EQ(one_node.intra, 101);
  EXPECT_EQ(one_node.inter, 0);
  EXPECT_EQ(one_node.world, 7);
  // 4 nodes x 1 GPU: no intra tier.
  const TierBytes one_gpu = tier_bytes(calls(), Strategy::hsadmm, NodeGrouping{4, 1});
  EXPECT_EQ(one_gpu.intra, 0);
  EXPECT_EQ(one_gpu.inter, 40);
  EXPECT_EQ(one_gpu.world, 7);
  // One rank: nothing at all, for DDP too (its world tier would otherwise be its inter).
  const TierBytes alone = tier_bytes(calls(), Strategy::ddp, NodeGrouping{1, 1});
  EXPECT_EQ(alone.intra + alone.inter + alone.world, 0);
}

TEST(TierBytes, StrategiesWithoutLeadersCountTheWorldAsInterOnSeveralNodes) {
  const TierBytes two = tier_bytes(calls(), Strategy::ddp, NodeGrouping{4, 2});
  EXPECT_EQ(two.world, 7);
  EXPECT_EQ(two.inter, 7);
  // One node of 4: the world crosses no node.
  const TierBytes one = tier_bytes(calls(), Strategy::ddp, NodeGrouping{4, 4});
  EXPECT_EQ(one.world, 7);
  EXPECT_EQ(one.inter, 0);
}

TEST(TierBytes, CgxCountsItsSendsByGroupAndNoReceives) {
  const std::vector<CallRecord> c = {{CollectiveOp::send, Group::intra, DType::u8, 30, 0},
                                     {CollectiveOp::recv, Group::intra, DType::u8, 30, 0},
                                     {CollectiveOp::send, Group::inter, DType::u8, 11, 0},
                                     {CollectiveOp::recv, Group::inter, DType::u8, 11, 0},
                                     {CollectiveOp::broadcast, Group::intra, DType::u8, 5, 0}};
  const TierBytes b = tier_bytes(c, Strategy::cgx, NodeGrouping{4, 2});
  EXPECT_EQ(b.intra, 35);
  EXPECT_EQ(b.inter, 11);
  EXPECT_EQ(b.world, 0);
}

}  // namespace
}  // namespace prunex
