// validate() and scale_to_nodes(): value and count checks, naming the file's fields.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"
#include "records/json_fields.h"
#include "topologies/bisection.h"
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

void validate(const Topology& t, const std::string& origin) {
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

  c.positive(t.intra.link.bandwidth_Bps / kGigaBytes, "intra.bandwidth_gbs");
  c.non_negative(t.intra.link.latency_s / kMicro, "intra.latency_us");
  if (t.intra.kind == IntraKind::nvlink_pairs) {
    c.at_least(t.intra.links_per_pair, 1, "intra.links_per_pair");
    const int needed = t.intra.links_per_pair * (t.gpus_per_node - 1);
    c.require(t.intra.links_per_gpu == 0 || needed <= t.intra.links_per_gpu, "intra.links_per_pair",
              num(t.intra.links_per_pair) + " x " + num(t.gpus_per_node - 1) +
                  " peers = " + num(needed) + " links per GPU exceeds intra.links_per_gpu " +
                  num(t.intra.links_per_gpu));
  }

  c.at_least(t.nic.rails, 1, "nic.rails");
  c.positive(t.nic.link.bandwidth_Bps / kGigaBits, "nic.bandwidth_gbits");
  c.non_negative(t.nic.link.latency_s / kMicro, "nic.latency_us");
  validate_fabric(t, c);
}

Topology scale_to_nodes(const Topology& t, int nodes) {
  PRUNEX_USAGE(nodes >= 1, "--nodes must be >= 1 (got ", nodes, ")");
  Topology s = t;
  s.nodes = nodes;
  Fabric& f = s.fabric;
  if (f.kind == FabricKind::fat_tree) {
    const int before = f.levels;
    // Capped so a tiny radix ends in validate()'s error rather than a long loop.
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
  validate(s, t.name + " scaled to " + std::to_string(nodes) + " nodes");
  return s;
}

}  // namespace prunex
