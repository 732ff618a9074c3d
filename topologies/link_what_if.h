// What-ifs on a cluster's links without writing a topology file: another NIC count, NIC speed
// or transport (RDMA or TCP sockets), another intra-node link speed. The options are the
// platform's (--nic-rails, --nic-gbits, --nic-transport, --intra-gbs: simulate/platform_fields.h),
// so every simulating command takes them; each change is recorded in the topology's sources.
#pragma once

#include <string>

#include "topologies/topology.h"

namespace prunex {

struct LinkWhatIf {
  int nic_rails = 0;     // NICs per node; 0: the topology's
  double nic_gbits = 0;  // each NIC's signalling rate (and the fabric's switch links); 0: as is
  std::string nic_transport;  // "rdma" or "tcp"; empty: the topology's latency and fraction
  double intra_gbs = 0;       // each intra-node link's GB/s per direction; 0: as is
  bool any() const {
    return nic_rails > 0 || nic_gbits > 0 || !nic_transport.empty() || intra_gbs > 0;
  }
};

// "rdma", "tcp"; anything else: UsageError naming both.
void check_nic_transport(const std::string& name);

// t with the what-if's links. A transport sets the NIC hop's latency and achieved fraction to a
// preset's, with its sources (rdma: puhti's; tcp: cloud-v100-25gbe's below 50 Gbit/s,
// cloud-v100-100gbe's above); a new rail count drops a stated NIC affinity. The result is checked
// (a fat tree too small for the new ports: UsageError).
Topology apply_link_what_if(const Topology& t, const LinkWhatIf& w);

// "--nic-rails 1, --nic-gbits 100, --nic-transport tcp" (empty when none), for run headers.
std::string link_what_if_text(const LinkWhatIf& w);

}  // namespace prunex
