#include "topologies/link_what_if.h"

#include <fmt/core.h>

#include "engine/error.h"
#include "records/json_fields.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

// The preset whose NIC a transport takes its hop latency and achieved fraction from, with
// their sources: RDMA, puhti's HDR100 InfiniBand (NCCL's network hop, tuning.cc; nccl-tests#29);
// TCP, NCCL's sockets on the Ethernet presets, the one nearest in speed (by ratio, the two meet
// at 50 Gbit/s): cloud-v100-25gbe (nccl-tests#82, #83) or cloud-v100-100gbe (nccl-tests#82,
// nccl#450).
std::string transport_preset(const std::string& transport, double gbits) {
  if (transport == "rdma") return "puhti";
  return gbits < 50 ? "cloud-v100-25gbe" : "cloud-v100-100gbe";
}

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
    const std::string preset =
        transport_preset(w.nic_transport, a.nic.link.bandwidth_Bps / kGigaBits);
    const Topology from = load_topology(preset);
    a.nic.link.latency_s = from.nic.link.latency_s;
    a.nic.achieved = from.nic.achieved;
    for (const char* key : {"nic.latency_us", "nic.achieved_fraction"})
      a.sources[key] = what + ": preset " + preset + "'s: " + from.source_of(key);
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
