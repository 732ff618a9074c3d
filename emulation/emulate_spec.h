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

// Frame size of the emulated links: jumbo (9000 bytes) at 100 Mbit/s and more, as cluster
// Ethernet fabrics run (InfiniBand's MTU is 4 KiB): fewer packets for the host's cores to
// forward, and headers take 0.7% of a frame instead of 4.4%. Standard 1500-byte frames on
// slower links, as such Ethernet runs, and so that the shaper's bucket (at least one frame)
// holds little time of credit.
int emulated_link_mtu(double rate_bps);

// The share of a shaped link's rate that one TCP stream's payload can reach with `mtu`-byte
// frames: tc's token bucket counts each frame with its 14-byte Ethernet header, and every
// frame carries 52 bytes of IPv4 (20), TCP (20) and timestamp option (12) headers (Linux
// sends timestamps by default): (mtu - 52) / (mtu + 14), 0.9564 at 1500, 0.9927 at 9000.
double tcp_goodput_fraction(int mtu);

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
