// check_topology() and scale_to_nodes(): value and count checks, naming the file's fields.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/error.h"
#include "records/json_fields.h"
#include "topologies/bisection.h"
#include "topologies/fabric_layout.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

std::string num(double x) {
  std::string s = std::to_string(x);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

class Checker {
 public:
  explicit Checker(std::string origin) : prefix_(topology_error_prefix(origin)) {}

  void require(bool ok, const std::string& field, const std::string& message) const {
    if (!ok) throw UsageError(prefix_ + field + " " + message);
  }
  // `value` is in file units (the unit the field name carries).
  void positive(double value, const std::string& field) const {
    require(value > 0, field, "must be > 0 (got " + num(value) + ")");
  }
  void non_negative(double value, const std::string& field) const {
    require(value >= 0, field, "must be >= 0 (got " + num(value) + ")");
  }
  void at_least(double value, double low, const std::string& field) const {
    require(value >= low, field, "must be >= " + num(low) + " (got " + num(value) + ")");
  }

 private:
  std::string prefix_;
};

// The NVLink matrix: gpus_per_node rows of gpus_per_node counts, symmetric, 0 on the
// diagonal, no GPU with more links than it has ports, and a ring through all GPUs over NVLink.
void validate_links(const Topology& t, const Checker& c) {
  const auto& m = t.intra.links;
  const int n = t.gpus_per_node;
  c.require(static_cast<int>(m.size()) == n, "intra.links",
            "must have gpus_per_node = " + num(n) + " rows (got " + num(m.size()) + ")");
  for (int a = 0; a < n; ++a) {
    c.require(static_cast<int>(m[a].size()) == n, "intra.links",
              "row " + num(a) + " must have " + num(n) + " counts (got " + num(m[a].size()) + ")");
    c.require(m[a][a] == 0, "intra.links", "GPU " + num(a) + " has links to itself");
    int sum = 0;
    for (int b = 0; b < n; ++b) {
      c.require(m[a][b] == m[b][a], "intra.links",
                "is not symmetric: GPU " + num(a) + " to " + num(b) + " has " + num(m[a][b]) +
                    ", back " + num(m[b][a]));
      sum += m[a][b];
    }
    c.require(t.intra.links_per_gpu == 0 || sum <= t.intra.links_per_gpu, "intra.links",
              "GPU " + num(a) + " has " + num(sum) + " links, more than intra.links_per_gpu " +
                  num(t.intra.links_per_gpu));
  }
  const int ring = ring_links(m);
  c.require(n == 1 || ring >= 1, "intra.links",
            "holds no ring through all GPUs over NVLink (the model needs one)");
  c.require(n == 1 || t.intra.links_per_pair == ring, "intra.links_per_pair",
            "must be the matrix's ring links, " + num(ring));
}

// Per NIC the GPUs next to it: one list per rail, every GPU once, and the rail the simulator
// gives each GPU (rail_of_gpu) must be the one it sits next to.
void validate_affinity(const Topology& t, const Checker& c) {
  const auto& a = t.nic.affinity;
  c.require(static_cast<int>(a.size()) == t.nic.rails, "nic.affinity",
            "must list the GPUs of each of the " + num(t.nic.rails) + " rails (got " +
                num(a.size()) + " lists)");
  std::vector<int> seen(t.gpus_per_node, 0);
  for (int rail = 0; rail < static_cast<int>(a.size()); ++rail)
    for (int g : a[rail]) {
      c.require(g < t.gpus_per_node, "nic.affinity",
                "names GPU " + num(g) + ", but a node has " + num(t.gpus_per_node));
      c.require(++seen[g] == 1, "nic.affinity", "names GPU " + num(g) + " twice");
      const int model = rail_of_gpu(g, t.gpus_per_node, t.nic.rails);
      c.require(model == rail, "nic.affinity",
                "puts GPU " + num(g) + " next to NIC " + num(rail) +
                    ", but the model gives it rail " + num(model) +
                    " (consecutive GPUs share a rail): number the NICs in that order");
    }
  for (int g = 0; g < t.gpus_per_node; ++g)
    c.require(seen[g] == 1, "nic.affinity", "does not place GPU " + num(g));
}

void validate_fabric(const Topology& t, const Checker& c) {
  const Fabric& f = t.fabric;
  c.positive(f.link.bandwidth_Bps / kGigaBits, "fabric.bandwidth_gbits");
  c.non_negative(f.link.latency_s / kMicro, "fabric.latency_us");
  if (f.kind == FabricKind::fat_tree) {
    c.at_least(f.levels, 1, "fabric.levels");
    c.at_least(f.radix, 2, "fabric.radix");
    c.at_least(f.blocking, 1, "fabric.blocking");
    const double ports = double(t.nodes) * t.nic.rails;
    const double capacity = fat_tree_max_ports(f.levels, f.radix, f.blocking);
    c.require(capacity >= ports, "fabric.radix",
              num(f.radix) + " with " + num(f.levels) + " levels (blocking " + num(f.blocking) +
                  ") connects at most " + num(capacity) +
                  " NIC ports, but nodes x nic.rails = " + num(ports));
  } else if (f.kind == FabricKind::dragonfly) {
    c.at_least(f.groups, 2, "fabric.groups");
    c.require(f.groups <= t.nodes, "fabric.groups",
              num(f.groups) + " exceeds nodes " + num(t.nodes) + " (a group needs a node)");
    c.at_least(f.radix, 1, "fabric.routers_per_group");
    c.at_least(f.global_links_per_router, 1, "fabric.global_links_per_router");
    const double per_group = double(f.radix) * f.global_links_per_router;
    c.require(per_group >= f.groups - 1, "fabric.global_links_per_router",
              num(f.global_links_per_router) + " x routers_per_group " + num(f.radix) + " = " +
                  num(per_group) + " global links per group cannot reach the other " +
                  num(f.groups - 1) + " groups");
  }
}

}  // namespace

void check_topology(const Topology& t, const std::string& origin) {
  const Checker c(origin.empty() ? t.name : origin);
  c.require(!t.name.empty(), "name", "must not be empty");
  c.at_least(t.nodes, 1, "nodes");
  c.at_least(t.gpus_per_node, 1, "gpus_per_node");

  c.require(!t.gpu.name.empty(), "gpu.name", "must not be empty");
  c.positive(t.gpu.fp32_flops / kTera, "gpu.fp32_tflops");
  c.positive(t.gpu.fp16_flops / kTera, "gpu.fp16_tflops");
  c.positive(t.gpu.mem_bandwidth_Bps / kGigaBytes, "gpu.memory_bandwidth_gbs");
  c.require(t.gpu.efficiency > 0 && t.gpu.efficiency <= 1, "gpu.efficiency",
            "must be in (0, 1] (got " + num(t.gpu.efficiency) + ")");
  c.non_negative(t.gpu.tf32_flops / kTera, "gpu.tf32_tflops");
  for (const auto& [value, key] : {std::pair{t.gpu.tf32_efficiency, "gpu.tf32_efficiency"},
                                   std::pair{t.gpu.amp_efficiency, "gpu.amp_efficiency"}})
    c.require(value >= 0 && value <= 1, key,
              "must be in (0, 1], or left out (got " + num(value) + ")");
  c.require(t.gpu.tf32_efficiency == 0 || t.gpu.tf32_flops > 0, "gpu.tf32_efficiency",
            "needs gpu.tf32_tflops (the peak it is a fraction of)");

  c.positive(t.intra.link.bandwidth_Bps / kGigaBytes, "intra.bandwidth_gbs");
  c.non_negative(t.intra.link.latency_s / kMicro, "intra.latency_us");
  c.require(t.intra.achieved > 0 && t.intra.achieved <= 1, "intra.achieved_fraction",
            "must be in (0, 1] (got " + num(t.intra.achieved) + ")");
  c.require(t.nic.achieved > 0 && t.nic.achieved <= 1, "nic.achieved_fraction",
            "must be in (0, 1] (got " + num(t.nic.achieved) + ")");
  if (t.intra.kind == IntraKind::nvlink_pairs && !t.intra.links.empty()) {
    validate_links(t, c);
  } else if (t.intra.kind == IntraKind::nvlink_pairs) {
    c.at_least(t.intra.links_per_pair, 1, "intra.links_per_pair");
    const int needed = t.intra.links_per_pair * (t.gpus_per_node - 1);
    c.require(t.intra.links_per_gpu == 0 || needed <= t.intra.links_per_gpu, "intra.links_per_pair",
              num(t.intra.links_per_pair) + " x " + num(t.gpus_per_node - 1) +
                  " peers = " + num(needed) + " links per GPU exceeds intra.links_per_gpu " +
                  num(t.intra.links_per_gpu));
  } else {
    c.require(t.intra.links.empty(), "intra.links", "applies to kind nvlink_pairs only");
  }

  c.at_least(t.nic.rails, 1, "nic.rails");
  if (!t.nic.affinity.empty()) validate_affinity(t, c);
  c.positive(t.nic.link.bandwidth_Bps / kGigaBits, "nic.bandwidth_gbits");
  c.non_negative(t.nic.link.latency_s / kMicro, "nic.latency_us");
  validate_fabric(t, c);
}

Topology scale_to_nodes(const Topology& t, int nodes) {
  PRUNEX_USAGE(nodes >= 1, "--nodes must be >= 1 (got ", nodes, ")");
  Topology s = t;
  s.nodes = nodes;
  if (nodes != t.nodes)  // the stated count's source no longer describes it
    s.sources["nodes"] = "what-if: " + std::to_string(nodes) + " nodes (--nodes); " + t.name +
                         " states " + std::to_string(t.nodes);
  Fabric& f = s.fabric;
  if (f.kind == FabricKind::fat_tree) {
    const int before = f.levels;
    // Capped so a tiny radix ends in check_topology()'s error rather than a long loop.
    while (f.levels < 16 &&
           fat_tree_max_ports(f.levels, f.radix, f.blocking) < double(nodes) * s.nic.rails)
      ++f.levels;
    if (f.levels != before)
      s.sources["fabric.levels"] = "raised from " + std::to_string(before) + " to connect " +
                                   std::to_string(nodes) + " nodes (what-if scale-out)";
  } else if (f.kind == FabricKind::dragonfly) {
    const int per_group = (t.nodes + t.fabric.groups - 1) / t.fabric.groups;
    const int groups = std::max(2, (nodes + per_group - 1) / per_group);
    if (groups != f.groups) {
      s.sources["fabric.groups"] = "scaled from " + std::to_string(f.groups) + " at " +
                                   std::to_string(per_group) + " nodes per group (what-if)";
      f.groups = groups;
    }
  }
  check_topology(s, t.name + " scaled to " + std::to_string(nodes) + " nodes");
  return s;
}

}  // namespace prunex
