// `prunex topology import`: a node from a saved `nvidia-smi topo -m` output. The matrix gives
// the GPUs, the NVLink count of each pair (NV#) and the NICs next to each GPU (PIX before
// PXB, PHB, NODE and SYS); everything a matrix does not hold (GPU type, link and NIC speeds,
// latencies, achieved fractions, the fabric, the node count) comes from a base topology.
#pragma once

#include <string>
#include <vector>

#include "topologies/topology.h"

namespace prunex {

struct TopoMatrix {
  std::vector<std::string> gpus, nics;         // column names, in order
  std::vector<std::vector<int>> nvlinks;       // GPU x GPU, NV# (0: none)
  std::vector<std::vector<int>> nic_distance;  // GPU x NIC: 0 PIX, 1 PXB, 2 PHB, 3 NODE, 4 SYS
};

// Parses the matrix out of the text (headers, legend and affinity columns are skipped).
// UsageError naming `origin` and the line on anything it cannot read.
TopoMatrix parse_topo_matrix(const std::string& text, const std::string& origin);

// The base with this node: gpus_per_node, intra.links (nvlink_pairs; the base must describe
// NVLink links, not switch ports), and, when the matrix lists NICs, one rail per NIC that is
// nearest to some GPU with nic.affinity. Sources name `origin`. Validated (a NIC order the
// model cannot place is the validator's one-line error).
Topology import_node(const TopoMatrix& m, const std::string& origin, const Topology& base,
                     const std::string& name);

}  // namespace prunex
