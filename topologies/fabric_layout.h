// Where GPUs and nodes sit in a cluster's fabric: which NIC rail a GPU uses, how many nodes
// share a fat-tree leaf or a dragonfly group, how far up a fat tree a route climbs. Pure
// arithmetic on a Topology: the SimGrid platform (backends/simgrid/platform.cc), the ring
// schedules and the closed forms (netmodel/) place ranks by it alike.
#pragma once

#include "topologies/topology.h"

namespace prunex {

// The NIC rail a GPU's inter-node traffic uses (GPU-NIC affinity: consecutive GPUs share a
// rail, as on Puhti where GPUs 0-1 sit next to NIC 0 and GPUs 2-3 next to NIC 1).
int rail_of_gpu(int local_gpu, int gpus_per_node, int rails);

// Nodes under one fat-tree leaf switch / one dragonfly group (as the SimGrid platform builds
// them).
int nodes_per_leaf(const Topology& t);
int nodes_per_group(const Topology& t, int nodes);

// Fat tree: leaves under one switch of `level` (1: a leaf; 2: a pod of radix/2 leaves;
// (radix/2)^(level-1)), and the level of the lowest switch above `leaves` consecutive leaves
// (at most fabric.levels). A route whose highest switch is at level h crosses 2h - 1
// switches.
int fat_tree_subtree_leaves(const Topology& t, int level);
int fat_tree_top_level(const Topology& t, int leaves);

}  // namespace prunex
