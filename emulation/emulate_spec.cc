#include "emulation/emulate_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/error.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

constexpr int kMaxNodes = 250;         // addresses .1 - .250 of one /24 per rail
constexpr int kMaxRails = 8;           // 198.18.0.0/24 - 198.18.7.0/24
constexpr double kMinRateBps = 100e3;  // the slowest link (emulation_spec says why)
constexpr double kMaxOneWayS = 0.5;    // the longest one-way delay

}  // namespace

EmulationSpec emulation_spec(const Topology& t, int nodes, int gpus_per_node, double slowdown) {
  PRUNEX_USAGE(nodes >= 1 && nodes <= kMaxNodes, "--nodes must be in [1, ", kMaxNodes,
               "] for an emulated cluster, got ", nodes);
  PRUNEX_USAGE(gpus_per_node >= 1, "--gpus-per-node must be >= 1, got ", gpus_per_node);
  PRUNEX_USAGE(slowdown > 0 && std::isfinite(slowdown), "--slowdown must be > 0, got ", slowdown);
  PRUNEX_USAGE(t.nic.rails <= kMaxRails, "topology ", t.name, " has ", t.nic.rails,
               " NIC rails; an emulated cluster has at most ", kMaxRails);
  EmulationSpec s;
  s.nodes = nodes;
  s.gpus_per_node = gpus_per_node;
  s.rails = std::max(1, t.nic.rails);
  s.slowdown = slowdown;
  s.topology = t.name;
  // A bridge per rail is one non-blocking switch: a star. Its port may cap the NIC (star
  // fabrics); a route crosses that one switch (topologies/README.md latency convention).
  double bw = t.nic.link.bandwidth_Bps;
  if (t.fabric.kind == FabricKind::star && t.fabric.link.bandwidth_Bps > 0)
    bw = std::min(bw, t.fabric.link.bandwidth_Bps);
  s.rate_bps = 8 * bw / slowdown;
  s.one_way_s = (t.nic.link.latency_s + t.fabric.link.latency_s) * slowdown;
  // Refused here, before anything is built: links tc cannot shape usefully. Below 100 kbit/s
  // the rate probe alone (256 KiB a link) takes over 20 s and MPI's start minutes; beyond
  // 0.5 s one way a round trip exceeds TCP's initial retransmission timeout (1 s, RFC 6298),
  // so every connection's start is sent twice.
  PRUNEX_USAGE(s.rate_bps >= kMinRateBps, "--slowdown ", slowdown, " makes ", t.name, "'s links ",
               s.rate_bps / 1e3, " kbit/s; an emulated link carries at least ", kMinRateBps / 1e3,
               " kbit/s (--slowdown at most ", 8 * bw / kMinRateBps, ")");
  PRUNEX_USAGE(s.one_way_s <= kMaxOneWayS, "--slowdown ", slowdown, " makes ", t.name,
               "'s one-way latency ", s.one_way_s, " s; an emulated link delays at most ",
               kMaxOneWayS, " s (--slowdown at most ",
               kMaxOneWayS / (t.nic.link.latency_s + t.fabric.link.latency_s), ")");
  s.fabric = t.fabric.kind == FabricKind::star
                 ? "star: one bridge per rail"
                 : "star: one bridge per rail (the topology's switches above the leaves are "
                   "not emulated: every route crosses one switch)";
  return s;
}

Topology emulated_topology(const EmulationSpec& spec, bool latency_emulated) {
  Topology t = load_topology("localhost");
  char slow[64];
  std::snprintf(slow, sizeof slow, "%g", spec.slowdown);
  const std::string made = "prunex emulate --topology " + spec.topology + " --slowdown " + slow;
  t.name = "emulated-" + spec.topology + "-x" + slow;
  t.description = "An emulated cluster on one host (" + made +
                  "): network namespaces as nodes, shaped veth links as NIC rails, one bridge "
                  "per rail; CPU ranks and shared memory inside a node";
  t.nodes = spec.nodes;
  t.gpus_per_node = spec.gpus_per_node;
  t.sources["nodes"] = made + " --nodes " + std::to_string(spec.nodes);
  t.sources["gpus_per_node"] = made + " --gpus-per-node " + std::to_string(spec.gpus_per_node);
  t.nic.rails = spec.rails;
  t.nic.link.bandwidth_Bps = spec.rate_bps / 8;
  t.nic.link.latency_s = latency_emulated ? spec.one_way_s : 0;
  t.sources["nic.rails"] = made + ": one veth link per rail of " + spec.topology;
  t.sources["nic.bandwidth_gbits"] =
      made + ": tbf rate per link and direction (" + spec.topology + "'s NIC / slowdown)";
  t.sources["nic.latency_us"] =
      latency_emulated ? made +
                             ": the links' delay (netem, or a switch in user space where the "
                             "kernel has no netem)"
                       : made + ": no netem qdisc in this kernel, so the links add no delay";
  t.fabric.kind = FabricKind::star;
  t.fabric.link.bandwidth_Bps = spec.rate_bps / 8 * spec.rails * spec.nodes;
  t.fabric.link.latency_s = 0;
  t.sources["fabric.kind"] = "prunex emulate: one Linux bridge per rail (" + spec.fabric + ")";
  t.sources["fabric.bandwidth_gbits"] =
      "prunex emulate: a bridge forwards every port at once (all nodes' rails), no bottleneck";
  t.sources["fabric.latency_us"] = "prunex emulate: the delay sits on the links (nic.latency_us)";
  check_topology(t, t.name);
  return t;
}

int emulated_link_mtu(double rate_bps) {
  return rate_bps >= 1e8 ? 9000 : 1500;
}

double tcp_goodput_fraction(int mtu) {
  constexpr double kEthernetHeader = 14, kIpTcpTimestampHeaders = 20 + 20 + 12;
  return (mtu - kIpTcpTimestampHeaders) / (mtu + kEthernetHeader);
}

}  // namespace prunex
