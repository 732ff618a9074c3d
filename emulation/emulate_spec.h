// What `prunex emulate` builds, before it is built: the emulation of a topology on M x P ranks
// (rails, shaped rate, one-way latency after the slowdown), and the emulated cluster as a
// topology file for `prunex calibrate` and `prunex simulate`. No system calls here.
#pragma once

#include <string>

#include "topologies/topology.h"

namespace prunex {

struct EmulationSpec {
  int nodes = 2;
  int gpus_per_node = 1;
  int rails = 1;
  double rate_bps = 0;   // per link and direction, after the slowdown (bit/s)
  double one_way_s = 0;  // node to node, after the slowdown: NIC + one switch hop
  double slowdown = 1;
  std::string topology;  // its name
  std::string fabric;    // what was emulated (a star per rail), for the records
};

// The spec of `t` on nodes x gpus_per_node with the slowdown; UsageError for shapes the host
// cannot hold (more than 250 nodes or 8 rails: one /24 per rail).
EmulationSpec emulation_spec(const Topology& t, int nodes, int gpus_per_node, double slowdown);

// The emulated cluster as a topology for `prunex simulate` and `prunex calibrate`: the
// localhost preset's CPU ranks and shared-memory intra tier (placeholders a calibration
// replaces), M nodes of P ranks, the spec's rails at its rate, a one-way latency of the spec's
// when it was emulated (else 0: what the links really add), and a star fabric that is no
// bottleneck (a bridge forwards every port at once). Sources say where each number came from.
Topology emulated_topology(const EmulationSpec& spec, bool latency_emulated);

}  // namespace prunex
