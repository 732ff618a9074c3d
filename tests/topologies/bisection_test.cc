// Fabric arithmetic against hand calculation and, for the dragonfly cut, brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "topologies/bisection.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

Topology cluster(int nodes, int rails, double nic_gbits) {
  Topology t;
  t.name = "hand";
  t.nodes = nodes;
  t.gpus_per_node = 4;
  t.nic.rails = rails;
  t.nic.link.bandwidth_Bps = nic_gbits * 1e9 / 8;
  return t;
}

TEST(TopologyBisection, PuhtiIsHalfTheNodesTimesTwoHdr100Rails) {
  // 40 nodes x 2 rails x 12.5 GB/s = 1000 GB/s per direction.
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(load_topology("puhti")), 1000e9);
  // dgx-a100: 64 x 8 x 25 GB/s; h100: 64 x 8 x 50 GB/s.
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(load_topology("dgx-a100")), 12800e9);
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(load_topology("h100")), 25600e9);
  // ethernet-100m: 4 x 12.5 MB/s.
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(load_topology("ethernet-100m")), 50e6);
}

TEST(TopologyBisection, FatTreeBlockingDividesOnlyAboveOneLevel) {
  Topology t = cluster(10, 1, 100);
  t.fabric.kind = FabricKind::fat_tree;
  t.fabric.levels = 2;
  t.fabric.blocking = 2;
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 5 * 12.5e9 / 2);  // 31.25 GB/s
  t.fabric.levels = 1;                                           // one switch: no uplinks to block
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 5 * 12.5e9);
}

TEST(TopologyBisection, StarUsesTheSlowerOfNicAndSwitchPortAndFloorsOddHalves) {
  Topology t = cluster(7, 2, 1);
  t.fabric.kind = FabricKind::star;
  t.fabric.link.bandwidth_Bps = 0.5e9 / 8;
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 3 * 2 * 62.5e6);  // floor(7/2) x 2 rails x port
  t.fabric.link.bandwidth_Bps = 10e9 / 8;
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 3 * 2 * 125e6);
}

TEST(TopologyBisection, DragonflyGlobalLinksByHand) {
  Topology t = cluster(64, 1, 100);
  t.fabric.kind = FabricKind::dragonfly;
  t.fabric.groups = 4;
  t.fabric.radix = 2;  // routers per group
  t.fabric.global_links_per_router = 2;
  t.fabric.link.bandwidth_Bps = 25e9;
  // G = 4 x 2 x 2 / 2 = 8 links over 6 group pairs; a 2|2 cut crosses 4 pairs: 8 x 4/6.
  EXPECT_DOUBLE_EQ(dragonfly_global_links(t.fabric), 8);
  EXPECT_NEAR(bisection_bandwidth_Bps(t), 8.0 * 4 / 6 * 25e9, 1);
  // With plenty of global links the NICs bound it: 32 x 12.5 GB/s.
  t.fabric.global_links_per_router = 50;
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 32 * 12.5e9);
  // Two groups: every global link crosses.
  t.fabric.groups = 2;
  t.fabric.global_links_per_router = 1;
  EXPECT_DOUBLE_EQ(bisection_bandwidth_Bps(t), 2 * 25e9);
}

// Brute force: groups joined pairwise by one link each (routers x links = g - 1); the least
// number of links across any split of the groups into floor(g/2) | ceil(g/2).
TEST(TopologyBisection, DragonflyCutMatchesBruteForce) {
  for (int g = 2; g <= 9; ++g) {
    double least = std::numeric_limits<double>::infinity();
    for (unsigned mask = 0; mask < (1u << g); ++mask) {
      if (__builtin_popcount(mask) != g / 2) continue;
      int crossing = 0;
      for (int a = 0; a < g; ++a)
        for (int b = a + 1; b < g; ++b) crossing += ((mask >> a) & 1) != ((mask >> b) & 1);
      least = std::min(least, double(crossing));
    }
    Topology t = cluster(1000, 100, 1000);  // NICs never the bound here
    t.fabric.kind = FabricKind::dragonfly;
    t.fabric.groups = g;
    t.fabric.radix = 1;
    t.fabric.global_links_per_router = g - 1;
    t.fabric.link.bandwidth_Bps = 1;
    EXPECT_NEAR(bisection_bandwidth_Bps(t), least, 1e-9) << g << " groups";
  }
}

TEST(TopologyBisection, FatTreePortCapacity) {
  EXPECT_DOUBLE_EQ(fat_tree_max_ports(1, 40, 1), 40);
  EXPECT_DOUBLE_EQ(fat_tree_max_ports(2, 40, 1), 800);    // 2 (k/2)^2
  EXPECT_DOUBLE_EQ(fat_tree_max_ports(3, 40, 1), 16000);  // 2 (k/2)^3
  EXPECT_DOUBLE_EQ(fat_tree_max_ports(2, 64, 1), 2048);
  // 12-port switches, 2:1: leaves 8 down + 4 up; 4 spines of 12 ports reach 12 leaves = 96.
  EXPECT_DOUBLE_EQ(fat_tree_max_ports(2, 12, 2), 96);
  // Leaf splits: down : up is the stated blocking (radix 4 at 2:1: 2 down, 1 up, not 2 + 2).
  EXPECT_EQ(fat_tree_leaf_down_ports(4, 2), 2);
  EXPECT_EQ(fat_tree_leaf_down_ports(8, 2), 4);  // 2 up
  EXPECT_EQ(fat_tree_leaf_down_ports(40, 1), 20);
  EXPECT_EQ(fat_tree_leaf_down_ports(5, 1), 2);     // 2 up, one port unused
  EXPECT_EQ(fat_tree_leaf_down_ports(10, 1.5), 6);  // 4 up
}

TEST(TopologyBisection, IntraBandwidthPerGpu) {
  // Puhti: 2 links x 3 peers x 25 GB/s.
  EXPECT_DOUBLE_EQ(intra_gpu_bandwidth_Bps(load_topology("puhti")), 150e9);
  EXPECT_DOUBLE_EQ(intra_gpu_bandwidth_Bps(load_topology("dgx-a100")), 300e9);
}

}  // namespace
}  // namespace prunex
