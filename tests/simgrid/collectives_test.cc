// Simulated collectives against their alpha-beta closed forms (uncongested platforms), for
// 1 KiB, 1 MiB and 1 GiB on 2, 4, 8 and 64 ranks. The closed forms are written out here from
// the topology numbers; each case simulates in its own process (one SimGrid engine each).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "netmodel/closed_form.h"
#include "simulate/fork_run.h"
#include "tests/common/sim_topologies.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

using sim::Algo;
using namespace test;

const std::vector<double> kSizes{1024.0, 1024.0 * 1024, 1024.0 * 1024 * 1024};
const std::vector<int> kRanks{2, 4, 8, 64};

// A hop of NCCL's tree between nodes costs 2.3 us more than a hop of its ring: tuning.cc's
// network latencies for LL, tree 5.0 us against ring 2.7 (NVLink and switch ports: 0.6 both).
constexpr double kTreeNetExtra = 5.0e-6 - 2.7e-6;

std::vector<double> simulate(const Topology& t, int nodes, int gpus, CollectiveOp op, Algo algo,
                             Group group = Group::world) {
  return sim::fork_run([&] {
    sim::SimCluster c(t, {nodes, gpus});
    std::vector<double> out;
    for (double s : kSizes)
      out.push_back(c.run_collective(op, algo, group, static_cast<std::size_t>(s)).seconds);
    return out;
  });
}

// Cross-node route latency: the NIC plus one fabric hop per switch; on the fat tree (4 nodes
// per leaf) the leaf, or leaf, spine and leaf once the route leaves a leaf. The star's
// switch has no latency here.
double inter_alpha(bool fat_tree, int nodes) {
  return kNicLat + (fat_tree ? (nodes > 4 ? 3 : 1) * kFabricLat : 0.0);
}

// Pipelined rings add up their hops: the ring of nodes 0 -> 1 -> ... -> M-1 -> 0 crosses a
// leaf boundary (leaf, spine, leaf: two more hops) after every 4th node once M > 4.
double node_ring_alpha(bool fat_tree, int nodes) {
  const int crossings = fat_tree && nodes > 4 ? nodes / 4 : 0;
  return nodes * inter_alpha(fat_tree, 1) + crossings * 2 * kFabricLat;
}

Topology fabric(bool fat_tree, int nodes, int gpus) {
  return fat_tree ? fat_tree_topology(nodes, gpus) : star_topology(nodes, gpus);
}

void expect_close(const std::vector<double>& sim, const std::vector<double>& closed,
                  const std::string& what) {
  for (std::size_t i = 0; i < sim.size(); ++i)
    EXPECT_NEAR(sim[i] / closed[i], 1.0, 0.01) << what << " size " << kSizes[i] << ": simulated "
                                               << sim[i] << " s, closed form " << closed[i] << " s";
}

// The simulation and closed_form_seconds, both against numbers derived by hand.
void expect_sim_and_closed_form(const Topology& t, int nodes, int gpus, CollectiveOp op, Algo algo,
                                Group group, const std::vector<double>& hand,
                                const std::string& what) {
  expect_close(simulate(t, nodes, gpus, op, algo, group), hand, what);
  for (std::size_t i = 0; i < kSizes.size(); ++i)
    EXPECT_NEAR(sim::closed_form_seconds(t, nodes, gpus, op, algo, group,
                                         static_cast<std::size_t>(kSizes[i])) /
                    hand[i],
                1, 1e-9)
        << what << ": closed form, size " << kSizes[i];
}

class ClosedForm : public ::testing::TestWithParam<bool> {};  // param: fat tree?

// 2(n-1) hops, pipelined: 2(n-1)/n of the ring's hops added up, + 2(n-1)/n S/B.
TEST_P(ClosedForm, RingAllreduce) {
  for (int n : kRanks) {
    const double h = node_ring_alpha(GetParam(), n);
    std::vector<double> closed;
    for (double s : kSizes)
      closed.push_back(2.0 * (n - 1) / n * h + 2.0 * (n - 1) / n * s / kNicBw);
    expect_close(simulate(fabric(GetParam(), n, 1), n, 1, CollectiveOp::allreduce, Algo::ring),
                 closed, "ring n=" + std::to_string(n));
  }
}

// Double binary tree, n a power of two: depth log2 n; the busiest rank sends (and receives)
// 2S in all (inner in one tree: S/2 up + 2 x S/2 down; leaf in the other: S/2), S when n = 2.
// Each hop: the route's latency + NCCL's tree extra.
TEST_P(ClosedForm, TreeAllreduce) {
  for (int n : kRanks) {
    const double a = inter_alpha(GetParam(), n) + kTreeNetExtra;
    const double depth = std::log2(n);
    std::vector<double> closed;
    for (double s : kSizes) closed.push_back(2 * depth * a + (n == 2 ? s : 2 * s) / kNicBw);
    expect_close(simulate(fabric(GetParam(), n, 1), n, 1, CollectiveOp::allreduce, Algo::tree),
                 closed, "tree n=" + std::to_string(n));
  }
}

// P GPUs behind a switch per node (ports kPortBw, one hop kPortLat), M nodes:
// 2 x [(P-1) a_i + S/B_i] + 2(M-1)/M H_x + 2(M-1)/M S/B_x (H_x: the leaders' ring hops).
TEST_P(ClosedForm, HierarchicalAllreduce) {
  for (int n : kRanks) {
    const int p = n == 2 ? 2 : 4, m = n / p;
    const double ai = kPortLat, hx = node_ring_alpha(GetParam(), m);
    std::vector<double> closed;
    for (double s : kSizes) {
      double t = 2 * ((p - 1) * ai + s / kPortBw);
      if (m > 1) t += 2.0 * (m - 1) / m * hx + 2.0 * (m - 1) / m * s / kNicBw;
      closed.push_back(t);
    }
    expect_close(
        simulate(fabric(GetParam(), m, p), m, p, CollectiveOp::allreduce, Algo::hierarchical),
        closed, "hierarchical n=" + std::to_string(n));
  }
}

// All-gather: (n-1)/n of the ring's hops; the chain from rank 0: every ring hop but the one
// back into rank 0 (from node n-1: across leaves on the fat tree once n > 4).
TEST_P(ClosedForm, RingAllgatherAndChainBroadcast) {
  for (int n : {4, 64}) {
    const double h = node_ring_alpha(GetParam(), n);
    const double wrap = inter_alpha(GetParam(), n);
    std::vector<double> gather, bcast;
    for (double s : kSizes) {
      gather.push_back((n - 1.0) / n * h + (n - 1) * s / kNicBw);  // s = each rank's block
      bcast.push_back(h - wrap + s / kNicBw);
    }
    const Topology t = fabric(GetParam(), n, 1);
    expect_close(simulate(t, n, 1, CollectiveOp::allgather, Algo::ring), gather,
                 "allgather n=" + std::to_string(n));
    expect_close(simulate(t, n, 1, CollectiveOp::broadcast, Algo::ring), bcast,
                 "broadcast n=" + std::to_string(n));
  }
}

INSTANTIATE_TEST_SUITE_P(SimCollectives, ClosedForm, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "FatTree" : "Star"; });

// A Puhti-like node (4 GPUs, NVLink pairs of 2 x 25 GB/s, 2 NIC rails): the ring splits into
// two channels, each leaving every node through its own NIC, so the cross-node term is
// computed with S/2 per NIC; the rings share NVLink pairs, which stay faster than the NICs.
TEST(SimCollectives, MultiRailRingUsesEveryNic) {
  for (int m : {2, 16}) {
    Topology t = fat_tree_topology(m, 4);
    t.nic.rails = 2;
    t.fabric.radix = 16;  // 16 x 1/2 = 8 ports = 4 dual-rail nodes per leaf
    t.intra.kind = IntraKind::nvlink_pairs;
    t.intra.links_per_pair = 2;
    t.intra.link = {25e9, 0.3e-6};
    const int n = 4 * m;
    // Each channel: 3 NVLink hops in every node and m node-to-node hops (4 nodes per leaf).
    const double h = m * 3 * 0.3e-6 + node_ring_alpha(true, m);
    std::vector<double> closed;
    for (double s : kSizes)
      closed.push_back(2.0 * (n - 1) / n * h + 2.0 * (n - 1) / n * (s / 2) / kNicBw);
    expect_close(simulate(t, m, 4, CollectiveOp::allreduce, Algo::ring), closed,
                 "multi-rail ring m=" + std::to_string(m));
  }
}

// 3 nodes x 3 GPUs on 8 rails: 3 channels, each on its own NICs, each GPU port shared by
// the 3 channels: 2(n-1)/n H + 2(n-1)/n (S/3) / min(NIC, port/3), H = 3 x (2 port hops + 1
// NIC hop).
TEST(SimCollectives, RingWithMoreRailsThanGpusUsesEveryChannelsOwnNic) {
  const int m = 3, p = 3, n = m * p;
  const double h = m * ((p - 1) * kPortLat + kNicLat);
  std::vector<double> closed;
  for (double s : kSizes)
    closed.push_back(2.0 * (n - 1) / n * h +
                     2.0 * (n - 1) / n * (s / 3) / std::min(kNicBw, kPortBw / 3));
  expect_close(simulate(star_topology(m, p, 8), m, p, CollectiveOp::allreduce, Algo::ring), closed,
               "3 x 3 on 8 rails");
}

// A channel per GPU (3 nodes x 2 GPUs, 2 rails) with slow GPU ports (NIC / 2): each channel
// enters a node at one GPU and leaves from the other, so each port direction carries one
// channel's intra edge, not two: per channel min(NIC, port / 1).
TEST(SimCollectives, RingWithAChannelPerGpuSharesEachPortAmongTheOthers) {
  const int m = 3, p = 2, n = m * p;
  Topology t = star_topology(m, p, 2);
  t.intra.link.bandwidth_Bps = kNicBw / 2;
  const double h = m * (kPortLat + kNicLat);
  std::vector<double> closed;
  for (double s : kSizes)
    closed.push_back(2.0 * (n - 1) / n * h + 2.0 * (n - 1) / n * (s / 2) / (kNicBw / 2));
  expect_sim_and_closed_form(t, m, p, CollectiveOp::allreduce, Algo::ring, Group::world, closed,
                             "3 x 2");
}

TEST(SimCollectives, IntraAndInterGroups) {
  const int m = 8, p = 4;
  const Topology t = star_topology(m, p);
  std::vector<double> intra, inter;
  for (double s : kSizes) {
    intra.push_back(2.0 * (p - 1) * kPortLat + 2.0 * (p - 1) / p * s / kPortBw);
    inter.push_back(2.0 * (m - 1) * kNicLat + 2.0 * (m - 1) / m * s / kNicBw);
  }
  expect_close(simulate(t, m, p, CollectiveOp::allreduce, Algo::ring, Group::intra), intra,
               "intra ring");
  expect_close(simulate(t, m, p, CollectiveOp::allreduce, Algo::ring, Group::inter), inter,
               "inter ring");
}

// Double binary tree loads by hand (collectives_tree.cc). 3 ranks behind one switch: tree 0
// is 0-2-1, tree 1 is 1-0-2, so ranks 0 and 2 each have three tree edges, S/2 each way on
// each: 1.5 S per port; broadcast down tree 0 gives each sender one child: S. Four GPUs with
// a link per pair: the trees share the pair 1-2, which carries S/2 of each: S; a broadcast
// child has its own link: S. Depth 2 everywhere. The closed forms say the same.
TEST(SimCollectives, TreesOnThreeRanksAndOnNvlinkPairs) {
  const Topology three = star_topology(3, 1);
  Topology pairs = star_topology(1, 4);
  pairs.intra.kind = IntraKind::nvlink_pairs;
  pairs.intra.links_per_pair = 1;
  const double b = pairs.intra.link.bandwidth_Bps, a = pairs.intra.link.latency_s;
  std::vector<double> three_ar, three_bc, pairs_ar, pairs_bc;
  for (double s : kSizes) {
    three_ar.push_back(4 * (kNicLat + kTreeNetExtra) + 1.5 * s / kNicBw);
    three_bc.push_back(2 * kNicLat + s / kNicBw);
    pairs_ar.push_back(4 * a + s / b);
    pairs_bc.push_back(2 * a + s / b);
  }
  expect_sim_and_closed_form(three, 3, 1, CollectiveOp::allreduce, Algo::tree, Group::world,
                             three_ar, "3 ranks");
  expect_sim_and_closed_form(three, 3, 1, CollectiveOp::broadcast, Algo::tree, Group::world,
                             three_bc, "3 ranks");
  expect_sim_and_closed_form(pairs, 1, 4, CollectiveOp::allreduce, Algo::tree, Group::intra,
                             pairs_ar, "pairs");
  expect_sim_and_closed_form(pairs, 1, 4, CollectiveOp::broadcast, Algo::tree, Group::intra,
                             pairs_bc, "pairs");
}

// --algo nccl runs, per collective, the algorithm NCCL's model picks: the same time as that
// algorithm run directly, and the result names it.
TEST(SimCollectives, NcclPicksPerCollectiveAndSaysWhich) {
  const Topology t = load_topology("dgx-a100");
  const auto got = sim::fork_run([&] {
    sim::SimCluster c(t, {32, 8});
    std::vector<double> out;
    for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 30})
      for (Algo a : {Algo::nccl, Algo::ring, Algo::tree}) {
        const auto r = c.run_collective(CollectiveOp::allreduce, a, Group::world, bytes);
        out.push_back(r.seconds);
        out.push_back(r.algo == Algo::tree ? 1 : r.algo == Algo::ring ? 0 : -1);
      }
    return out;
  });
  // 8 B: tree, as fast as the tree; 1 GiB: ring, as fast as the ring.
  // (Near, not equal: each run starts at a later simulated clock, so the times round apart.)
  EXPECT_EQ(got[1], 1);
  EXPECT_NEAR(got[0], got[4], 1e-12 * got[4]);
  EXPECT_LT(got[0], got[2] / 5);
  EXPECT_EQ(got[7], 0);
  EXPECT_NEAR(got[6], got[8], 1e-12 * got[8]);
}

// NCCL's tree over nodes of several GPUs: a chain through each node's GPUs, the double binary
// tree over the nodes' heads. 4 GPUs behind switch ports (0.5 us), R rails, C = min(R, 4)
// channels of S/C. 4 nodes: both trees have depth 2 (tree 0: 0 <- 2 <- 1, 3), so the longest
// path up is 3 intra hops + 2 node hops of 1 us + 2.3 us: twice that is 16.2 us. A rail
// carries 2 x S/C (inner in one tree, a leaf in the other); the busiest port at most 2S / 100
// GB/s, far under a rail's time. 3 nodes: depth 2 again, a rail 1.5 x S/C.
TEST(SimCollectives, NcclTreeChainsInTheNodesAndATreeOverThem) {
  for (int rails : {1, 2, 4})
    for (int nodes : {3, 4}) {
      const int channels = std::min(rails, 4);
      const double lat = 2 * (3 * kPortLat + 2 * (kNicLat + kTreeNetExtra));
      std::vector<double> hand;
      for (double s : kSizes)
        hand.push_back(lat + (nodes == 3 ? 1.5 : 2.0) * s / channels / kNicBw);
      expect_sim_and_closed_form(
          star_topology(nodes, 4, rails), nodes, 4, CollectiveOp::allreduce, Algo::tree,
          Group::world, hand, std::to_string(nodes) + " x 4, " + std::to_string(rails) + " rails");
    }
}

// The same tree where the intra links bind: ports of 5 GB/s under 12.5 GB/s NICs, 4 nodes x
// 4 GPUs. One rail: one chain 0-1-2-3, a middle GPU's port sends S/C up and S/C down, 2S
// in all. Four rails: four rotated chains; each GPU heads one (one neighbour), ends one (one)
// and sits inside two (two each): 6 x S/4 = 1.5S. (The rails then carry 2 x S/4 at 12.5.)
TEST(SimCollectives, NcclTreeOnSlowIntraLinks) {
  constexpr double kSlowPort = 5e9;
  for (int rails : {1, 4}) {
    Topology t = star_topology(4, 4, rails);
    t.intra.link.bandwidth_Bps = kSlowPort;
    const double lat = 2 * (3 * kPortLat + 2 * (kNicLat + kTreeNetExtra));
    std::vector<double> hand;
    for (double s : kSizes) hand.push_back(lat + (rails == 1 ? 2.0 : 1.5) * s / kSlowPort);
    expect_sim_and_closed_form(t, 4, 4, CollectiveOp::allreduce, Algo::tree, Group::world, hand,
                               "slow ports, " + std::to_string(rails) + " rails");
  }
}

// And on a fat tree of 2 leaves (4 nodes a leaf), 8 nodes x 2 GPUs, one rail: a hop inside a
// leaf costs the NIC + one switch (1.7 us), across leaves + three (3.1 us). Tree 0 is
// 0 <- 4 <- {2 <- {1, 3}, 6 <- {5, 7}}: the longest path up, 1 -> 2 -> 4 -> 0, is one hop in a
// leaf and two across (7.9 us); tree 1 (mirrored) has the same. With the chain's one port hop
// and 3 x 2.3 us of tree extra: twice 15.3 us. A rail carries 2S (the uplinks pool four).
TEST(SimCollectives, NcclTreeOnAFatTree) {
  const double in_leaf = kNicLat + kFabricLat, across = kNicLat + 3 * kFabricLat;
  const double lat = 2 * (kPortLat + in_leaf + 2 * across + 3 * kTreeNetExtra);
  std::vector<double> hand;
  for (double s : kSizes) hand.push_back(lat + 2 * s / kNicBw);
  expect_sim_and_closed_form(fat_tree_topology(8, 2), 8, 2, CollectiveOp::allreduce, Algo::tree,
                             Group::world, hand, "fat tree 8 x 2");
}

TEST(SimCollectives, TreeAllgatherIsAUsageError) {
  EXPECT_THROW(simulate(star_topology(4, 1), 4, 1, CollectiveOp::allgather, Algo::tree),
               UsageError);
}

// --nccl-protocols: each collective in the protocol NCCL's tuning picks, with that protocol's
// latency (tuning.cc: base + per step hardware latency, in place of the routes' latency) and
// wire overhead. 1 node x 4 GPUs behind 100 GB/s ports (NCCL: 4 NVLinks x 20 GB/s, one
// channel), 2(n - 1) = 6 steps. 1 KiB: LL, 6.6 + 6 x 0.6 = 10.2 us (LL128 14 + 6 x 1.9 = 25.4,
// Simple 8.4 + 6 x 3.4 = 28.8) and twice the bytes: 10.2 us + 1.5 x 2S / 100 GB/s. 1 GiB:
// Simple (LL's 40 GB/s and LL128's 20 lose), 28.8 us, bytes as they are.
TEST(SimCollectives, NcclProtocolsTakeTheirLatencyAndWireOverhead) {
  const Topology t = star_topology(1, 4);
  const auto x = sim::fork_run([&] {
    sim::SimConfig cfg{1, 4};
    cfg.nccl_protocols = true;
    sim::SimCluster c(t, cfg);
    std::vector<double> out;
    for (double s : {1024.0, 1073741824.0}) {
      const auto r = c.run_collective(CollectiveOp::allreduce, Algo::ring, Group::world,
                                      static_cast<std::size_t>(s));
      out.push_back(r.seconds);
      out.push_back(r.protocol == "LL" ? 0 : r.protocol == "Simple" ? 2 : -1);
    }
    return out;
  });
  const double small = 10.2e-6 + 1.5 * 2 * 1024 / kPortBw;
  const double big = 28.8e-6 + 1.5 * 1073741824.0 / kPortBw;
  EXPECT_NEAR(x[0], small, 1e-9 * small);
  EXPECT_EQ(x[1], 0) << "1 KiB: LL";
  EXPECT_NEAR(x[2], big, 1e-9 * big);
  EXPECT_EQ(x[3], 2) << "1 GiB: Simple";
}

// NVLink-pair nodes whose pair links are slower than the NICs. 2 nodes x 4 GPUs, 4 rails:
// 4 channels of S/4; 4 paths of 3 arcs use all 12 directed pairs once each (GPU g enters
// channel g and leaves another), so each pair link carries one channel: 2(n-1) a + 2(n-1)/n
// (S/4) / min(NIC, pair). A rotated layout put 3 channels on a pair (3x slower). With 3 GPUs
// and 3 rails no decomposition into arc-disjoint paths exists (6 arcs, 3 paths of 2, each GPU
// an entry and an exit: the arcs into the entries and out of the exits must pair up, which
// forces a repeat; brute force in schedule_test.cc), so the best layout puts 2 channels on a
// pair: per channel min(NIC, pair / 2).
TEST(SimCollectives, RingOnNvlinkPairsUsesDistinctPairLinksPerChannel) {
  const double pair = kNicBw / 4;
  for (int p : {4, 3}) {
    const int m = 2, n = m * p;
    Topology t = star_topology(m, p, p);
    t.intra.kind = IntraKind::nvlink_pairs;
    t.intra.links_per_pair = 1;
    t.intra.link = {pair, 0.3e-6};
    const double per_channel = p == 4 ? std::min(kNicBw, pair) : std::min(kNicBw, pair / 2);
    const double h = m * ((p - 1) * 0.3e-6 + kNicLat);
    std::vector<double> closed;
    for (double s : kSizes)
      closed.push_back(2.0 * (n - 1) / n * h + 2.0 * (n - 1) / n * (s / p) / per_channel);
    expect_sim_and_closed_form(t, m, p, CollectiveOp::allreduce, Algo::ring, Group::world, closed,
                               "2 x " + std::to_string(p) + " on NVLink pairs");
  }
}

}  // namespace
}  // namespace prunex
