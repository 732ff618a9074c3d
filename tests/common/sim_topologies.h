// Small topologies built in code for the simulator tests. Round numbers so the closed forms
// are easy to write down: NIC 12.5 GB/s and 1 us, switch ports 100 GB/s and 0.5 us.
#pragma once

#include "topologies/topology.h"

namespace prunex::test {

constexpr double kNicBw = 12.5e9, kNicLat = 1e-6;
constexpr double kPortBw = 100e9, kPortLat = 0.5e-6;
constexpr double kFabricLat = 0.7e-6;

inline Topology star_topology(int nodes, int gpus_per_node, int rails = 1) {
  Topology t;
  t.name = "test-star";
  t.nodes = nodes;
  t.gpus_per_node = gpus_per_node;
  t.gpu.fp32_flops = 10e12;
  t.gpu.efficiency = 0.5;
  t.gpu.mem_bandwidth_Bps = 800e9;
  t.intra.kind = IntraKind::nvswitch;
  t.intra.link = {kPortBw, kPortLat};
  t.nic.rails = rails;
  t.nic.link = {kNicBw, kNicLat};
  t.fabric.kind = FabricKind::star;
  return t;
}

// Leaves of radix 8: 4 nodes under a leaf when non-blocking (4 up, 4 down), 4 at 2:1 (2 up,
// 4 down, 2 ports unused: topologies/bisection.h).
inline Topology fat_tree_topology(int nodes, int gpus_per_node, double blocking = 1.0,
                                  int radix = 8) {
  Topology t = star_topology(nodes, gpus_per_node);
  t.name = "test-fat-tree";
  t.fabric.kind = FabricKind::fat_tree;
  t.fabric.levels = 2;
  t.fabric.radix = radix;
  t.fabric.blocking = blocking;
  t.fabric.link = {kNicBw, kFabricLat};
  return t;
}

}  // namespace prunex::test
