// An emulated cluster on one host (`prunex emulate`): each node a Linux network namespace with
// its own hostname, each NIC rail a veth link into a bridge (the rail's switch), shaped with tc
// to the topology's NIC bandwidth and latency (divided / multiplied by the slowdown). Built and
// removed with `ip` and `tc` (iproute2), as root. Addresses 198.18.R.(K+1)/24 for node K on rail
// R (RFC 2544's benchmarking range) exist only inside the namespaces made here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "emulation/emulate_spec.h"

namespace prunex {

class DelaySwitch;

// UsageError (exit 2) unless this process may create network namespaces (root or
// CAP_NET_ADMIN) and ip, tc and unshare are installed.
void check_emulation_possible();

class EmulatedCluster {
 public:
  // Names carry this process's id, so concurrent emulations do not collide.
  explicit EmulatedCluster(EmulationSpec spec);
  ~EmulatedCluster();  // tears down whatever was built (unless kept; a switch stops anyway)
  EmulatedCluster(const EmulatedCluster&) = delete;
  EmulatedCluster& operator=(const EmulatedCluster&) = delete;

  // Creates namespaces, bridges, veths, addresses and shaping; throws std::runtime_error
  // naming the failing `ip`/`tc` command (what was built so far is removed by the destructor).
  void build();
  // Sends a short TCP stream over every inter-node link (node k to k+1 on each rail) and
  // throws std::runtime_error naming the first link whose best of three probes is off by
  // more than `tolerance` from the TCP payload rate its shaping sets (rate x
  // tcp_goodput_fraction). Prints one line per probe to stderr.
  void check_rates(double tolerance = 0.10) const;
  // Removes everything built (idempotent).
  void teardown();
  void keep() { keep_ = true; }

  const EmulationSpec& spec() const { return spec_; }
  // "netem", "user-space switch" (emulation/emulate_delay.h, where the kernel has no netem), or
  // "none" (no latency asked, or not built yet).
  std::string delay_method() const { return delay_method_; }
  // Whether the links carry the spec's latency (build() throws where neither way works).
  bool latency_emulated() const { return spec_.one_way_s <= 0 || delay_method_ != "none"; }
  std::string prefix() const { return prefix_; }
  std::string netns(int node) const;
  std::string hostname(int node) const;
  // The NCCL_HOSTID of node's processes: NCCL takes each emulated node for a host of its own,
  // whatever the caller's environment says.
  std::string nccl_host_id(int node) const { return prefix_ + "-" + hostname(node); }
  std::string address(int node, int rail) const;
  // The rsh agent Open MPI calls instead of ssh (written into a private temporary folder).
  std::string agent_path() const { return agent_; }
  std::string hostfile_path() const { return hostfile_; }

 private:
  void write_launch_files();

  EmulationSpec spec_;
  std::string prefix_;   // "pxe" + 6 hex digits of the pid
  std::string workdir_;  // agent and hostfile
  std::string agent_, hostfile_;
  int built_nodes_ = 0;
  bool bridges_ = false, keep_ = false;
  std::string delay_method_ = "none";
  std::unique_ptr<DelaySwitch> switch_;
};

// Removes the namespaces, links and bridges of emulations whose process is gone (names
// "pxe<pid>..."): what a killed run left behind. Returns how many objects were removed.
int cleanup_stale_emulations();

}  // namespace prunex
