// Point-to-point flows on built platforms: exact alpha-beta times and contention.
#include <gtest/gtest.h>

#include "backends/simgrid/platform.h"
#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "simulate/fork_run.h"
#include "tests/common/sim_topologies.h"
#include "topologies/bisection.h"

namespace prunex {
namespace {

using sim::Flow;
using sim::fork_run;
using sim::SimCluster;
using namespace test;

constexpr double kS = 64.0 * 1024 * 1024;

std::vector<double> flow_seconds(const Topology& t, int nodes, int gpus, std::vector<Flow> flows,
                                 sim::FabricRouting routing = sim::FabricRouting::pooled,
                                 std::uint64_t seed = 1) {
  return fork_run([&] {
    sim::SimConfig cfg{nodes, gpus};
    cfg.fabric_routing = routing;
    cfg.ecmp_seed = seed;
    SimCluster c(t, cfg);
    std::vector<double> s;
    for (const auto& f : c.run_flows(flows)) s.push_back(f.seconds);
    return s;
  });
}

TEST(SimFlows, UncongestedTransferIsLatencyPlusSizeOverBandwidth) {
  // Cross-node on a star: one NIC hop (half its latency on each side's rail).
  auto s = flow_seconds(star_topology(2, 2), 2, 2, {{0, 2, kS}});
  EXPECT_NEAR(s[0], kNicLat + kS / kNicBw, 1e-9 * s[0]);
  // Inside a node through the switch: one port hop.
  s = flow_seconds(star_topology(2, 2), 2, 2, {{0, 1, kS}});
  EXPECT_NEAR(s[0], kPortLat + kS / kPortBw, 1e-9 * s[0]);
}

TEST(SimFlows, StarSwitchPortLimitsAndAddsItsHop) {
  Topology t = star_topology(2, 1);
  t.fabric.link = {10e9, 0.2e-6};  // slower switch ports than the NICs
  const auto s = flow_seconds(t, 2, 1, {{0, 1, kS}});
  EXPECT_NEAR(s[0], kNicLat + 0.2e-6 + kS / 10e9, 1e-9 * s[0]);
}

TEST(SimFlows, NvlinkPairsUseTheirOwnLinks) {
  Topology t = star_topology(1, 4);
  t.intra.kind = IntraKind::nvlink_pairs;
  t.intra.links_per_pair = 2;
  t.intra.link = {25e9, 0.3e-6};
  // 0->1 and 2->3 use different pair links: no sharing; 0->1 and 1->0 opposite directions.
  auto s = flow_seconds(t, 1, 4, {{0, 1, kS}, {2, 3, kS}, {1, 0, kS}});
  for (double x : s) EXPECT_NEAR(x, 0.3e-6 + kS / 50e9, 1e-9 * x);
}

TEST(SimFlows, TwoFlowsThroughOneNicTakeTwiceAsLong) {
  const double one = flow_seconds(star_topology(2, 2), 2, 2, {{0, 2, kS}})[0];
  // GPUs 0 and 1 share the node's single NIC on the way out.
  auto two = flow_seconds(star_topology(2, 2), 2, 2, {{0, 2, kS}, {1, 3, kS}});
  const double bw_part = one - kNicLat;
  for (double x : two) EXPECT_NEAR(x - kNicLat, 2 * bw_part, 1e-6 * x);
  // With two rails each GPU has its own NIC: no slowdown.
  two = flow_seconds(star_topology(2, 2, 2), 2, 2, {{0, 2, kS}, {1, 3, kS}});
  for (double x : two) EXPECT_NEAR(x, one, 1e-6 * x);
}

TEST(SimFlows, BlockingFatTreeHalvesCrossPodBandwidth) {
  // Radix 6: 3 nodes per leaf when non-blocking (3 up), 4 at 2:1 (2 up). Every node of leaf 0
  // sends to its partner in leaf 1 at once; uplink = nodes x NIC / blocking.
  for (double blocking : {1.0, 2.0}) {
    const int per_leaf = blocking == 1.0 ? 3 : 4;
    const Topology t = fat_tree_topology(2 * per_leaf, 1, blocking, 6);
    std::vector<Flow> flows;
    for (int i = 0; i < per_leaf; ++i) flows.push_back({i, per_leaf + i, kS});
    const double lat = kNicLat + 3 * kFabricLat;  // leaf, spine, leaf
    for (double x : flow_seconds(t, 2 * per_leaf, 1, flows)) {
      const double bw = kS / (x - lat);
      EXPECT_NEAR(bw, kNicBw / blocking, 1e-6 * kNicBw) << "blocking " << blocking;
    }
    // Inside a pod the full NIC bandwidth stays.
    auto in_pod = flow_seconds(t, 2 * per_leaf, 1, {{0, 1, kS}, {1, 2, kS}});
    for (double x : in_pod) EXPECT_NEAR(x, kNicLat + kFabricLat + kS / kNicBw, 1e-6 * x);
  }
}

TEST(SimFlows, SlowSwitchLinksSlowCrossLeafTraffic) {
  // Radix 6, non-blocking: 3 nodes per leaf, 3 uplinks per leaf. Switch-to-switch links at a
  // quarter of the NIC speed: the bundle is 3 x NIC / 4, so 3 flows leaving a leaf at once
  // get NIC / 4 each, and one alone 3 x NIC / 4 (its NIC is faster). Inside a leaf: the NIC.
  Topology t = fat_tree_topology(6, 1, 1.0, 6);
  t.fabric.link.bandwidth_Bps = kNicBw / 4;
  const double lat = kNicLat + 3 * kFabricLat;
  for (double x : flow_seconds(t, 6, 1, {{0, 3, kS}, {1, 4, kS}, {2, 5, kS}}))
    EXPECT_NEAR(kS / (x - lat), kNicBw / 4, 1e-6 * kNicBw);
  const double one = flow_seconds(t, 6, 1, {{0, 3, kS}})[0];
  EXPECT_NEAR(kS / (one - lat), 3 * kNicBw / 4, 1e-6 * kNicBw);
  const double in_leaf = flow_seconds(t, 6, 1, {{0, 1, kS}})[0];
  EXPECT_NEAR(in_leaf, kNicLat + kFabricLat + kS / kNicBw, 1e-6 * in_leaf);
  // The bisection says the same: 3 nodes a side x min(NIC, 1 x NIC/4 / 1).
  EXPECT_NEAR(bisection_bandwidth_Bps(t), 3 * kNicBw / 4, 1e-6 * kNicBw);
}

TEST(SimFlows, LargeLeavesKeepExactRoutes) {
  // Radix 40: 20 nodes per leaf; with 8 GPUs per node a leaf spans three 8-node chunks.
  const Topology t = fat_tree_topology(24, 8, 1.0, 40);
  // GPU 0 of node 0 to node 10 (same leaf, another chunk), node 3 (same chunk), node 22
  // (other leaf); one at a time, then all three at once through GPU 0's NIC.
  const std::vector<Flow> each{{0, 10 * 8, kS}, {0, 3 * 8, kS}, {0, 22 * 8, kS}};
  const double lats[] = {kNicLat + kFabricLat, kNicLat + kFabricLat, kNicLat + 3 * kFabricLat};
  for (int i = 0; i < 3; ++i) {
    const double x = flow_seconds(t, 24, 8, {each[i]})[0];
    EXPECT_NEAR(x, lats[i] + kS / kNicBw, 1e-9 * x) << "flow " << i;
  }
  const auto all = flow_seconds(t, 24, 8, each);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(all[i], lats[i] + 3 * kS / kNicBw, 1e-6 * all[i]);
}

// One latency convention (topologies/README.md): the NIC's latency plus one fabric hop per
// switch on the route. Radix 4, 3 levels, non-blocking: 2 nodes per leaf, 2 leaves per pod.
// Node 0 to node 1: its leaf (1 switch); to node 2: leaf, pod switch, leaf (3); to node 4:
// leaf, pod, core, pod, leaf (5). A star: its one switch.
TEST(SimFlows, RouteLatencyIsTheNicPlusOneHopPerSwitch) {
  Topology t = fat_tree_topology(8, 1, 1.0, 4);
  t.fabric.levels = 3;
  const double hops[] = {1, 3, 5};
  const int dst[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    const double x = flow_seconds(t, 8, 1, {{0, dst[i], kS}})[0];
    EXPECT_NEAR(x, kNicLat + hops[i] * kFabricLat + kS / kNicBw, 1e-9 * x) << "to node " << dst[i];
  }
  Topology star = star_topology(2, 1);
  star.fabric.link.latency_s = kFabricLat;
  const double x = flow_seconds(star, 2, 1, {{0, 1, kS}})[0];
  EXPECT_NEAR(x, kNicLat + kFabricLat + kS / kNicBw, 1e-9 * x);
}

// ECMP: radix 4, non-blocking: 2 nodes per leaf, 2 uplinks per leaf (one per spine). Nodes
// 0 and 1 send to nodes 2 and 3 of the other leaf at once. Pooled, the two flows share the
// 2-link bundle: NIC speed each. Hashed, each takes uplink ecmp_path(seed, src, dst, 2) up and
// the same spine's link down: on different uplinks, NIC speed; on the same one, half each.
// Over 16 seeds both happen, and a seed always gives the same times.
TEST(SimFlows, EcmpHashesEachFlowOntoOneUplink) {
  const Topology t = fat_tree_topology(4, 1, 1.0, 4);
  ASSERT_EQ(sim::ecmp_uplinks_per_leaf(t), 2);
  const std::vector<Flow> flows{{0, 2, kS}, {1, 3, kS}};
  const double lat = kNicLat + 3 * kFabricLat;
  for (double x : flow_seconds(t, 4, 1, flows))
    EXPECT_NEAR(x, lat + kS / kNicBw, 1e-9 * x) << "pooled";
  int collided = 0, spread = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    const bool same = sim::ecmp_path(seed, 0, 2, 2) == sim::ecmp_path(seed, 1, 3, 2);
    (same ? collided : spread)++;
    const auto x = flow_seconds(t, 4, 1, flows, sim::FabricRouting::ecmp, seed);
    for (double v : x)
      EXPECT_NEAR(v, lat + (same ? 2 : 1) * kS / kNicBw, 1e-9 * v) << "seed " << seed;
    EXPECT_EQ(x, flow_seconds(t, 4, 1, flows, sim::FabricRouting::ecmp, seed)) << "seed " << seed;
  }
  EXPECT_GT(collided, 0);
  EXPECT_GT(spread, 0);
  // Switch links at a quarter of the NIC: one flow alone gets the pooled bundle (2 links, NIC
  // / 2) but only its own uplink hashed (NIC / 4).
  Topology slow = t;
  slow.fabric.link.bandwidth_Bps = kNicBw / 4;
  const double pooled = flow_seconds(slow, 4, 1, {{0, 2, kS}})[0];
  EXPECT_NEAR(pooled, lat + kS / (kNicBw / 2), 1e-9 * pooled);
  const double hashed = flow_seconds(slow, 4, 1, {{0, 2, kS}}, sim::FabricRouting::ecmp)[0];
  EXPECT_NEAR(hashed, lat + kS / (kNicBw / 4), 1e-9 * hashed);
}

// The same hop counts under ECMP (3 levels: leaf 1, pod 3, across pods 5), and a star has no
// uplinks to hash: a usage error before any work.
TEST(SimFlows, EcmpKeepsTheLatencyConventionAndNeedsAFatTree) {
  Topology t = fat_tree_topology(8, 1, 1.0, 4);
  t.fabric.levels = 3;
  const double hops[] = {1, 3, 5};
  const int dst[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    const double x = flow_seconds(t, 8, 1, {{0, dst[i], kS}}, sim::FabricRouting::ecmp)[0];
    EXPECT_NEAR(x, kNicLat + hops[i] * kFabricLat + kS / kNicBw, 1e-9 * x) << "to node " << dst[i];
  }
  EXPECT_THROW(flow_seconds(star_topology(2, 1), 2, 1, {{0, 1, kS}}, sim::FabricRouting::ecmp),
               UsageError);
}

TEST(SimFlows, DragonflyGroupsShareTheirGlobalLinks) {
  // 2 groups of 4 nodes; a group's global bundle = 2 routers x 1 global link x 12.5 GB/s.
  Topology t = fat_tree_topology(8, 1);
  t.fabric.kind = FabricKind::dragonfly;
  t.fabric.groups = 2;
  t.fabric.radix = 2;  // routers per group
  t.fabric.global_links_per_router = 1;
  const double lat = kNicLat + 2 * kFabricLat;  // two groups, each one switch
  // Four nodes of group 0 send to group 1 at once: 25 GB/s shared by four flows.
  const auto x = flow_seconds(t, 8, 1, {{0, 4, kS}, {1, 5, kS}, {2, 6, kS}, {3, 7, kS}});
  for (double v : x) EXPECT_NEAR(v, lat + kS / (2 * kNicBw / 4), 1e-6 * v);
  // Inside a group: the NICs only.
  EXPECT_NEAR(flow_seconds(t, 8, 1, {{0, 1, kS}})[0], kNicLat + kFabricLat + kS / kNicBw, 1e-9);
}

TEST(SimFlows, SharingIsMaxMinUnlessRttFairIsAskedFor) {
  // GPUs 0 and 1 of node 0 share its NIC; one sends inside the leaf, one across the core.
  const Topology t = fat_tree_topology(8, 2);
  const std::vector<Flow> flows{{0, 2, kS}, {1, 6 * 2, kS}};
  const double cross = kNicLat + 3 * kFabricLat;
  for (bool rtt : {false, true}) {
    const auto x = sim::fork_run([&] {
      sim::SimConfig cfg{8, 2};
      cfg.rtt_fair_sharing = rtt;
      SimCluster c(t, cfg);
      std::vector<double> v;
      for (const auto& f : c.run_flows(flows)) v.push_back(f.seconds);
      return v;
    });
    if (!rtt) {  // equal halves of the NIC
      EXPECT_NEAR(x[0], kNicLat + kFabricLat + 2 * kS / kNicBw, 1e-6 * x[0]);
      EXPECT_NEAR(x[1], cross + 2 * kS / kNicBw, 1e-6 * x[1]);
    } else {  // CM02: shares in inverse proportion to route latency, the short route wins
      EXPECT_LT(x[0], x[1] - 0.1 * kS / kNicBw);
    }
  }
}

TEST(SimFlows, OneEnginePerProcessIsEnforced) {
  EXPECT_THROW(fork_run([] {
                 SimCluster a(star_topology(2, 1), {2, 1});
                 SimCluster b(star_topology(2, 1), {2, 1});
                 return std::vector<double>{};
               }),
               std::runtime_error);
}

TEST(SimFlows, BadShapeIsAUsageError) {
  EXPECT_THROW(fork_run([] {
                 SimCluster a(star_topology(2, 4), {3, 4});
                 return std::vector<double>{};
               }),
               UsageError);
  EXPECT_THROW(fork_run([] {
                 sim::SimConfig cfg{2, 1};
                 cfg.network_model = "CM03";
                 SimCluster a(star_topology(2, 1), cfg);
                 return std::vector<double>{};
               }),
               UsageError);
}

}  // namespace
}  // namespace prunex
