#include "topologies/fabric_layout.h"

#include <algorithm>

#include "topologies/bisection.h"

namespace prunex {

int rail_of_gpu(int local_gpu, int gpus_per_node, int rails) {
  rails = std::max(1, rails);
  return static_cast<int>(static_cast<long>(local_gpu) * rails / std::max(1, gpus_per_node)) %
         rails;
}

// A leaf's down ports (topologies/bisection.h, down : up = the file's blocking); each node
// takes `rails` of them.
int nodes_per_leaf(const Topology& t) {
  const int down = fat_tree_leaf_down_ports(t.fabric.radix, std::max(1.0, t.fabric.blocking));
  return std::max(1, down / std::max(1, t.nic.rails));
}

int fat_tree_subtree_leaves(const Topology& t, int level) {
  long leaves = 1;
  for (int h = 1; h < level && leaves < (1L << 30); ++h) leaves *= std::max(1, t.fabric.radix / 2);
  return static_cast<int>(std::min(leaves, 1L << 30));
}

int fat_tree_top_level(const Topology& t, int leaves) {
  int h = 1;
  while (h < std::max(1, t.fabric.levels) && leaves > fat_tree_subtree_leaves(t, h)) ++h;
  return h;
}

int nodes_per_group(const Topology& t, int nodes) {
  const int groups = std::max(1, t.fabric.groups);
  return std::max(1, (std::max(nodes, t.nodes) + groups - 1) / groups);
}

}  // namespace prunex
