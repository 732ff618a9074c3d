#include "topologies/link_what_if.h"

#include <fmt/core.h>

#include "engine/error.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

constexpr double kGigaBits = 1e9 / 8;  // bytes per second in a Gbit/s
constexpr double kGigaBytes = 1e9;
constexpr double kMicro = 1e-6;

// A NIC hop over NCCL's IB/RDMA transport: NCCL's network latency per hop (src/graph/tuning.cc,
// ring, LL) and an HDR100 port's achieved share (nccl-tests#29: 12.2 of 12.5 GB/s), as the
// puhti preset states them.
constexpr double kRdmaLatencyUs = 2.7;
constexpr double kRdmaAchieved = 0.976;
// Over NCCL's socket transport: the TCP presets' hop, nccl-tests#82's 8 B broadcast between
// two Azure VMs (45.82 us) less NCCL's Simple base latency (8.4 us); the achieved share of the
// published row nearest in speed (by ratio, the two meet at 50 Gbit/s): 25 Gbit/s 0.544
// (nccl-tests#83: 1.7 of 3.125 GB/s), 100 Gbit/s 0.4 (nccl#450: 4-6 of 12.5 GB/s).
constexpr double kTcpLatencyUs = 37.42;
constexpr double kTcpAchievedAt25 = 0.544;
constexpr double kTcpAchievedAt100 = 0.4;

}  // namespace

void check_nic_transport(const std::string& name) {
  PRUNEX_USAGE(name == "rdma" || name == "tcp", "unknown NIC transport '", name,
               "' (rdma: InfiniBand or RoCE; tcp: NCCL's sockets)");
}

Topology apply_link_what_if(const Topology& t, const LinkWhatIf& w) {
  if (!w.any()) return t;
  Topology a = t;
  const std::string what = "what-if (" + link_what_if_text(w) + ")";
  if (w.nic_rails > 0) {
    a.nic.rails = w.nic_rails;
    a.nic.affinity.clear();
    a.sources["nic.rails"] = what;
  }
  if (w.nic_gbits > 0) {
    a.nic.link.bandwidth_Bps = w.nic_gbits * kGigaBits;
    a.fabric.link.bandwidth_Bps = w.nic_gbits * kGigaBits;  // switch links as the ports
    a.sources["nic.bandwidth_gbits"] = what;
    a.sources["fabric.bandwidth_gbits"] = what + ": the switch links at the NICs' rate";
  }
  if (!w.nic_transport.empty()) {
    check_nic_transport(w.nic_transport);
    const bool tcp = w.nic_transport == "tcp";
    const double gbits = a.nic.link.bandwidth_Bps / kGigaBits;
    a.nic.link.latency_s = (tcp ? kTcpLatencyUs : kRdmaLatencyUs) * kMicro;
    a.nic.achieved = !tcp ? kRdmaAchieved : gbits < 50 ? kTcpAchievedAt25 : kTcpAchievedAt100;
    a.sources["nic.latency_us"] =
        what + (tcp ? ": NCCL's sockets, nccl-tests#82 (45.82 us) less the Simple base latency "
                      "(8.4 us)"
                    : ": NCCL's network hop, src/graph/tuning.cc");
    a.sources["nic.achieved_fraction"] =
        what + (!tcp         ? ": nccl-tests#29, 12.2 of 12.5 GB/s"
                : gbits < 50 ? ": nccl-tests#83 at 25 Gbit/s, 1.7 of 3.125 GB/s"
                             : ": nccl#450 at 100 Gbit/s, 5 of 12.5 GB/s");
  }
  if (w.intra_gbs > 0) {
    a.intra.link.bandwidth_Bps = w.intra_gbs * kGigaBytes;
    a.sources["intra.bandwidth_gbs"] = what;
  }
  check_topology(a, what);
  return a;
}

std::string link_what_if_text(const LinkWhatIf& w) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (w.nic_rails > 0) add(fmt::format("--nic-rails {}", w.nic_rails));
  if (w.nic_gbits > 0) add(fmt::format("--nic-gbits {:g}", w.nic_gbits));
  if (!w.nic_transport.empty()) add("--nic-transport " + w.nic_transport);
  if (w.intra_gbs > 0) add(fmt::format("--intra-gbs {:g}", w.intra_gbs));
  return s;
}

}  // namespace prunex
