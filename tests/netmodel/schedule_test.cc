// Collective schedules without the simulator: tree shapes, ring channels, byte totals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "netmodel/closed_form.h"
#include "netmodel/collectives.h"
#include "topologies/fabric_layout.h"

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

// Brute force over every choice of one Hamiltonian path per channel (each starting at its
// channel's entry): the fewest channels any choice puts on one directed arc, subject to the
// exits being distinct members on the entries' rails. An independent check of the search.
int brute_force_arc_load(const std::vector<int>& rails, const std::vector<int>& entries) {
  const int m = static_cast<int>(rails.size()), c = static_cast<int>(entries.size());
  std::vector<int> order(m);
  std::vector<std::vector<std::vector<int>>> options(c);
  for (int k = 0; k < c; ++k) {
    std::iota(order.begin(), order.end(), 0);
    do {
      if (order.front() == entries[k]) options[k].push_back(order);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  std::multiset<int> entry_rails;
  for (int e : entries) entry_rails.insert(rails[e]);
  int best = c + 1;
  std::vector<std::size_t> pick(c, 0);
  for (;;) {
    std::multiset<int> exit_rails;
    std::set<int> exits;
    std::vector<int> load(static_cast<std::size_t>(m) * m, 0);
    int worst = 0;
    for (int k = 0; k < c; ++k) {
      const auto& path = options[k][pick[k]];
      exits.insert(path.back());
      exit_rails.insert(rails[path.back()]);
      for (int i = 0; i + 1 < m; ++i) worst = std::max(worst, ++load[path[i] * m + path[i + 1]]);
    }
    if (static_cast<int>(exits.size()) == c && exit_rails == entry_rails)
      best = std::min(best, worst);
    int k = 0;
    while (k < c && ++pick[k] == options[k].size()) pick[k++] = 0;
    if (k == c) break;
  }
  return best;
}

// The layout is valid (each path a permutation from its entry; exits distinct, on the
// entries' rails; the arc load counted) and as good as brute force, for up to 5 GPUs per
// node and every channel count; larger nodes: valid and arc-disjoint, as the header says.
TEST(SimSchedules, NvlinkPairChannelLayoutsAreArcDisjointWhereBruteForceSaysTheyCanBe) {
  for (int m = 2; m <= 8; ++m)
    for (int rails = 2; rails <= 8; ++rails) {
      const int c = std::min(rails, m);
      std::vector<int> rail(m);
      for (int g = 0; g < m; ++g) rail[g] = rail_of_gpu(g, m, rails);
      const auto got = node_channel_paths(rail, c, true);
      const std::string what = std::to_string(m) + " GPUs, " + std::to_string(rails) + " rails";
      ASSERT_EQ(got.paths.size(), static_cast<std::size_t>(c)) << what;
      std::map<std::pair<int, int>, int> load;
      std::set<int> entry_rails_seen, exits;
      std::vector<int> entries;
      int worst = 0;
      for (const auto& path : got.paths) {
        ASSERT_EQ(std::set<int>(path.begin(), path.end()).size(), static_cast<std::size_t>(m));
        entries.push_back(path.front());
        entry_rails_seen.insert(rail[path.front()]);
        exits.insert(path.back());
        for (int i = 0; i + 1 < m; ++i) worst = std::max(worst, ++load[{path[i], path[i + 1]}]);
      }
      EXPECT_EQ(entry_rails_seen.size(), static_cast<std::size_t>(c)) << what;
      EXPECT_EQ(exits.size(), static_cast<std::size_t>(c)) << what;
      EXPECT_EQ(got.arc_load, worst) << what;
      const bool odd_full = c == m && (m == 3 || m == 5);
      EXPECT_EQ(worst, odd_full ? 2 : 1) << what;
      if (m <= 4 || (m == 5 && rails == 5)) {
        EXPECT_EQ(worst, brute_force_arc_load(rail, entries)) << what;
      }
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
        for (const auto& round : build_schedule(op, a, g, l, s))
          for (const auto& f : round.flows) total += f.bytes;
        EXPECT_NEAR(total, expected_total_bytes(op, a, g, l.nodes, l.gpus_per_node, s),
                    1e-6 * total)
            << collective_op_name(op) << " " << algo_name(a) << " " << group_name(g);
      }
}

// NCCL's tree over 4 nodes of 4 GPUs on 2 rails: 2 channels, each a chain through every node
// from the first GPU on its rail (GPU 0 or 2), heads joined by both trees of 3 edges. Only
// heads send between nodes, and a node's heads sit on distinct rails. The latency paths run
// from a tree leaf's tail up its chain (3 intra hops) and up the tree (2 node hops).
TEST(SimSchedules, NcclTreeJoinsChainHeadsAcrossNodes) {
  const RankLayout l{4, 4, 2};
  const Schedule s = build_schedule(CollectiveOp::allreduce, Algo::tree, Group::world, l, 1024);
  ASSERT_EQ(s.size(), 1u);
  std::set<int> heads;
  int intra = 0, inter = 0;
  for (const auto& f : s[0].flows) {
    if (f.src / 4 == f.dst / 4) {
      ++intra;
      EXPECT_DOUBLE_EQ(f.bytes, 512);  // S/C, both trees
    } else {
      ++inter;
      heads.insert(f.src);
      EXPECT_DOUBLE_EQ(f.bytes, 256);  // S/2C, one tree
    }
  }
  EXPECT_EQ(intra, 2 * 4 * 3 * 2);  // channels x nodes x chain edges x both ways
  EXPECT_EQ(inter, 2 * 2 * 3 * 2);  // channels x trees x tree edges x both ways
  EXPECT_EQ(heads, (std::set<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_TRUE(s[0].nccl_tree_hops);
  EXPECT_EQ(s[0].chain_weight, 2);
  for (const auto& chain : s[0].latency_chains) {
    ASSERT_EQ(chain.size(), 5u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(chain[i].first / 4, chain[i].second / 4);
    for (int i = 3; i < 5; ++i) EXPECT_NE(chain[i].first / 4, chain[i].second / 4);
  }
}

}  // namespace
}  // namespace prunex
