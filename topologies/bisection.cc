#include "topologies/bisection.h"

#include <algorithm>
#include <cmath>

namespace prunex {

double intra_gpu_bandwidth_Bps(const Topology& t) {
  if (t.intra.kind == IntraKind::nvlink_pairs && !t.intra.links.empty()) {
    int most = 0;  // the best-linked GPU's links
    for (const auto& row : t.intra.links) {
      int sum = 0;
      for (int x : row) sum += x;
      most = std::max(most, sum);
    }
    return most * t.intra.link.bandwidth_Bps;
  }
  if (t.intra.kind == IntraKind::nvlink_pairs)
    return t.intra.links_per_pair * double(t.gpus_per_node - 1) * t.intra.link.bandwidth_Bps;
  return t.intra.link.bandwidth_Bps;
}

int fat_tree_leaf_down_ports(int radix, double blocking) {
  if (radix < 2 || blocking < 1) return 0;
  const double up = std::floor(radix / (1.0 + blocking) + 1e-9);
  return static_cast<int>(std::floor(up * blocking + 1e-9));
}

double fat_tree_max_ports(int levels, int radix, double blocking) {
  if (levels < 1 || radix < 1 || blocking < 1) return 0;
  if (levels == 1) return radix;
  const double leaf_down = fat_tree_leaf_down_ports(radix, blocking);
  return leaf_down * std::pow(double(radix), levels - 1) / std::pow(2.0, levels - 2);
}

double dragonfly_global_links(const Fabric& f) {
  return std::floor(double(f.groups) * f.radix * f.global_links_per_router / 2);
}

double bisection_bandwidth_Bps(const Topology& t) {
  const double half = std::floor(t.nodes / 2.0);
  switch (t.fabric.kind) {
    case FabricKind::star:
      return half * t.nic.rails * std::min(t.nic.link.bandwidth_Bps, t.fabric.link.bandwidth_Bps);
    case FabricKind::fat_tree:
      if (t.fabric.levels < 2) return half * t.node_injection_Bps();
      // Through the uplinks: rails / blocking switch-to-switch links per node, or the NICs.
      return half *
             std::min(t.node_injection_Bps(), std::max(1, t.nic.rails) * t.fabric_link_Bps() /
                                                  std::max(1.0, t.fabric.blocking));
    case FabricKind::dragonfly: {
      const double g = t.fabric.groups;
      const double crossing = dragonfly_global_links(t.fabric) * std::floor(g / 2) *
                              std::ceil(g / 2) / (g * (g - 1) / 2);
      return std::min(half * t.node_injection_Bps(), crossing * t.fabric.link.bandwidth_Bps);
    }
  }
  return 0;
}

}  // namespace prunex
