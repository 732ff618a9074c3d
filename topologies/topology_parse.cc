// parse_topology: a topology document -> Topology (SI units), then check_topology().
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "records/json_fields.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"

namespace prunex {
namespace {

GpuType parse_gpu(JsonFields f) {
  GpuType g;
  g.name = f.string("name");
  g.fp32_flops = f.number("fp32_tflops", kTera);
  g.fp16_flops = f.number("fp16_tflops", kTera);
  g.mem_bandwidth_Bps = f.number("memory_bandwidth_gbs", kGigaBytes);
  g.efficiency = f.number("efficiency");
  // Optional: absent is 0 ("not stated"), so a stated value must be above 0.
  auto stated = [&f](const std::string& key, double scale) {
    const auto v = f.optional_number(key, scale);
    if (v && !(*v > 0)) {
      char got[32];
      std::snprintf(got, sizeof got, "%g", *v / scale);
      f.fail(key, std::string("must be > 0, or left out (got ") + got + ")");
    }
    return v.value_or(0);
  };
  g.tf32_flops = stated("tf32_tflops", kTera);
  g.tf32_efficiency = stated("tf32_efficiency", 1);
  g.amp_efficiency = stated("amp_efficiency", 1);
  f.finish();
  return g;
}

IntraNode parse_intra(JsonFields f) {
  IntraNode in;
  std::string kind = f.string("kind");
  if (!intra_kind_from_name(kind, &in.kind))
    f.fail("kind", "must be one of " + intra_kind_names() + " (got \"" + kind + "\")");
  in.link.bandwidth_Bps = f.number("bandwidth_gbs", kGigaBytes);
  in.link.latency_s = f.number("latency_us", kMicro);
  in.achieved = f.optional_number("achieved_fraction").value_or(1);
  if (in.kind == IntraKind::nvlink_pairs) {
    in.links = f.optional_int_rows("links");
    if (in.links.empty()) {
      in.links_per_pair = f.integer("links_per_pair");
    } else if (f.has("links_per_pair")) {
      f.fail("links_per_pair",
             "is derived from intra.links when the matrix is given; leave it out");
    }
    in.links_per_gpu = f.optional_integer("links_per_gpu").value_or(0);
    if (f.has("links_per_gpu") && in.links_per_gpu < 1)
      f.fail("links_per_gpu",
             "must be >= 1 when given (got " + std::to_string(in.links_per_gpu) + ")");
  }
  f.finish();
  return in;
}

NicSpec parse_nic(JsonFields f) {
  NicSpec nic;
  nic.rails = f.integer("rails");
  nic.link.bandwidth_Bps = f.number("bandwidth_gbits", kGigaBits);
  nic.link.latency_s = f.number("latency_us", kMicro);
  nic.achieved = f.optional_number("achieved_fraction").value_or(1);
  nic.affinity = f.optional_int_rows("affinity");
  f.finish();
  return nic;
}

Fabric parse_fabric(JsonFields f) {
  Fabric fab;
  std::string kind = f.string("kind");
  if (!fabric_kind_from_name(kind, &fab.kind))
    f.fail("kind", "must be one of " + fabric_kind_names() + " (got \"" + kind + "\")");
  fab.link.bandwidth_Bps = f.number("bandwidth_gbits", kGigaBits);
  fab.link.latency_s = f.number("latency_us", kMicro);
  // Fields of other kinds keep their defaults and are unknown keys here.
  if (fab.kind == FabricKind::fat_tree) {
    fab.levels = f.integer("levels");
    fab.radix = f.integer("radix");
    fab.blocking = f.number("blocking");
  } else if (fab.kind == FabricKind::dragonfly) {
    fab.groups = f.integer("groups");
    fab.radix = f.integer("routers_per_group");
    fab.global_links_per_router = f.integer("global_links_per_router");
  }
  f.finish();
  return fab;
}

}  // namespace

Topology parse_topology(const nlohmann::json& doc, const std::string& origin) {
  Topology t;
  JsonFields f(doc, origin, "", &t.sources);
  t.name = f.string("name");
  t.description = f.optional_string("description").value_or("");
  t.nodes = f.integer("nodes");
  t.gpus_per_node = f.integer("gpus_per_node");
  t.gpu = parse_gpu(f.object("gpu"));
  t.intra = parse_intra(f.object("intra"));
  t.nic = parse_nic(f.object("nic"));
  t.fabric = parse_fabric(f.object("fabric"));
  f.finish();
  const auto& m = t.intra.links;
  const bool square = !m.empty() && static_cast<int>(m.size()) == t.gpus_per_node &&
                      std::all_of(m.begin(), m.end(), [&](const auto& r) {
                        return static_cast<int>(r.size()) == t.gpus_per_node;
                      });
  if (square) t.intra.links_per_pair = ring_links(m);  // check_topology() checks the rest
  check_topology(t, origin);
  return t;
}

}  // namespace prunex
