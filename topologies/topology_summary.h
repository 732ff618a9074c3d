// Human-readable views of a Topology: one summary line (for `topology check`, logs and
// result configs) and the multi-line `topology show` text with per-tier bandwidths.
#pragma once

#include <string>

#include "topologies/topology.h"

namespace prunex {

// "puhti: 80 nodes x 4 NVIDIA V100 SXM2 32GB = 320 GPUs; intra nvlink_pairs 150 GB/s per
//  GPU; NIC 2 x 100 Gbit/s; fat_tree; bisection 1000 GB/s"
std::string topology_summary_line(const Topology& t);

// Nodes, GPU type with peak/effective FLOP/s, intra bandwidth per GPU, NIC rails, fabric,
// bisection bandwidth, and the sources of every number.
std::string describe_topology(const Topology& t);

}  // namespace prunex
