// Collective schedules without the simulator: tree shapes, ring channels, byte totals.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "backends/simgrid/closed_form.h"
#include "backends/simgrid/collectives.h"
#include "backends/simgrid/platform.h"

namespace prunex {
namespace {

using namespace sim;

TEST(SimSchedules, DoubleBinaryTreeIsTwoTreesWithInnerRanksLeavesInTheOther) {
  for (int n : {2, 3, 4, 5, 8, 13, 64}) {
    std::map<int, int> inner;  // rank -> trees it has children in
    for (int tree = 0; tree < 2; ++tree) {
      std::vector<int> children(n, 0);
      int roots = 0;
      for (int r = 0; r < n; ++r) {
        const int p = btree_parent(r, n, tree);
        if (p < 0) {
          ++roots;
          continue;
        }
        ASSERT_GE(p, 0);
        ASSERT_LT(p, n);
        ++children[p];
        // Walking up reaches the root (no cycles).
        int x = r, steps = 0;
        while (btree_parent(x, n, tree) >= 0 && steps <= n) x = btree_parent(x, n, tree), ++steps;
        EXPECT_LE(steps, n - 1);
      }
      EXPECT_EQ(roots, 1) << "n " << n << " tree " << tree;
      for (int r = 0; r < n; ++r) {
        EXPECT_LE(children[r], 2) << "n " << n << " rank " << r;
        if (children[r] > 0) ++inner[r];
      }
    }
    if (n % 2 == 0 && n > 2) {
      for (const auto& [r, trees] : inner) EXPECT_EQ(trees, 1) << "n " << n << " rank " << r;
    }
    if ((n & (n - 1)) == 0) {
      EXPECT_EQ(btree_depth(n, 0), static_cast<int>(std::log2(n)));
    }
  }
}

TEST(SimSchedules, RingChannelsEnterEveryNodeOnTheirOwnRail) {
  const RankLayout puhti{3, 4, 2};  // GPUs 0,1 on rail 0; 2,3 on rail 1
  const auto rings = ring_channels(group_members(Group::world, puhti).front(), puhti);
  ASSERT_EQ(rings.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(rings[k].size(), 12u);
    for (int node = 0; node < 3; ++node) {
      const int entry = rings[k][node * 4];
      EXPECT_EQ(entry / 4, node);
      EXPECT_EQ(rail_of_gpu(entry % 4, 4, 2), k);
    }
  }
  // Leaders only (one GPU per node): one channel.
  EXPECT_EQ(ring_channels(group_members(Group::inter, puhti).front(), puhti).size(), 1u);
}

TEST(SimSchedules, RingChannelsUseDistinctNicsWithMoreRailsThanGpus) {
  // 3 GPUs per node on 8 rails: GPU g on rail floor(8g/3) = 0, 2, 5. Three channels, each
  // entering every node at another GPU, so each leaves through another GPU (NIC) too.
  const RankLayout l{3, 3, 8};
  const auto rings = ring_channels(group_members(Group::world, l).front(), l);
  ASSERT_EQ(rings.size(), 3u);
  for (int node = 0; node < 3; ++node) {
    std::set<int> entries, exits;
    for (const auto& ring : rings) {
      entries.insert(ring[node * 3] % 3);
      exits.insert(ring[node * 3 + 2] % 3);
    }
    EXPECT_EQ(entries.size(), 3u) << "node " << node;
    EXPECT_EQ(exits.size(), 3u) << "node " << node;
  }
}

TEST(SimSchedules, FlowsCarryTheAlgorithmsTotals) {
  const RankLayout l{4, 4, 2};
  const double s = 1 << 20;
  for (CollectiveOp op :
       {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::broadcast})
    for (Algo a : {Algo::ring, Algo::tree, Algo::hierarchical})
      for (Group g : {Group::world, Group::intra, Group::inter}) {
        if (op == CollectiveOp::allgather && a == Algo::tree) continue;
        double total = 0;
        for (const auto& phase : build_schedule(op, a, g, l, s))
          for (const auto& f : phase.flows) total += f.bytes;
        EXPECT_NEAR(total, expected_total_bytes(op, a, g, l.nodes, l.gpus_per_node, s),
                    1e-6 * total)
            << collective_op_name(op) << " " << algo_name(a) << " " << group_name(g);
      }
}

}  // namespace
}  // namespace prunex
