// topology_to_json: the normalised file form of a Topology.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "records/json_fields.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"

namespace prunex {
namespace {

// 12 significant digits: hides the last-bit noise of unit conversion (0.6e-6 * 1e6).
double tidy(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", x);
  return std::strtod(buf, nullptr);
}

class Writer {
 public:
  explicit Writer(const Topology& t) : t_(t) {}
  // `path` is the dotted field path; `value` in SI is divided by `scale` into file units.
  void number(nlohmann::json& obj, const std::string& path, double value, double scale = 1.0) {
    const std::string key = path.substr(path.rfind('.') + 1);
    nlohmann::json v = tidy(value / scale);
    auto it = t_.sources.find(path);
    obj[key] = it == t_.sources.end() ? v : nlohmann::json{{"value", v}, {"source", it->second}};
  }
  void integer(nlohmann::json& obj, const std::string& path, int value) {
    const std::string key = path.substr(path.rfind('.') + 1);
    auto it = t_.sources.find(path);
    obj[key] = it == t_.sources.end() ? nlohmann::json(value)
                                      : nlohmann::json{{"value", value}, {"source", it->second}};
  }

 private:
  const Topology& t_;
};

// Rows of whole numbers, with their source when the file gave one.
nlohmann::json rows_with_source(const Topology& t, const std::string& path,
                                const std::vector<std::vector<int>>& rows) {
  nlohmann::json v = rows;
  auto it = t.sources.find(path);
  return it == t.sources.end() ? v : nlohmann::json{{"value", v}, {"source", it->second}};
}

}  // namespace

nlohmann::json topology_to_json(const Topology& t) {
  Writer w(t);
  nlohmann::json doc;
  doc["name"] = t.name;
  if (!t.description.empty()) doc["description"] = t.description;
  w.integer(doc, "nodes", t.nodes);
  w.integer(doc, "gpus_per_node", t.gpus_per_node);

  nlohmann::json gpu;
  gpu["name"] = t.gpu.name;
  w.number(gpu, "gpu.fp32_tflops", t.gpu.fp32_flops, kTera);
  w.number(gpu, "gpu.fp16_tflops", t.gpu.fp16_flops, kTera);
  w.number(gpu, "gpu.memory_bandwidth_gbs", t.gpu.mem_bandwidth_Bps, kGigaBytes);
  w.number(gpu, "gpu.efficiency", t.gpu.efficiency);
  if (t.gpu.tf32_flops > 0) w.number(gpu, "gpu.tf32_tflops", t.gpu.tf32_flops, kTera);
  if (t.gpu.tf32_efficiency > 0) w.number(gpu, "gpu.tf32_efficiency", t.gpu.tf32_efficiency);
  if (t.gpu.amp_efficiency > 0) w.number(gpu, "gpu.amp_efficiency", t.gpu.amp_efficiency);
  doc["gpu"] = gpu;

  nlohmann::json intra;
  intra["kind"] = intra_kind_name(t.intra.kind);
  w.number(intra, "intra.bandwidth_gbs", t.intra.link.bandwidth_Bps, kGigaBytes);
  w.number(intra, "intra.latency_us", t.intra.link.latency_s, kMicro);
  if (t.intra.achieved != 1) w.number(intra, "intra.achieved_fraction", t.intra.achieved);
  if (t.intra.kind == IntraKind::nvlink_pairs && !t.intra.links.empty()) {
    intra["links"] = rows_with_source(t, "intra.links", t.intra.links);
    if (t.intra.links_per_gpu > 0) w.integer(intra, "intra.links_per_gpu", t.intra.links_per_gpu);
  } else if (t.intra.kind == IntraKind::nvlink_pairs) {
    w.integer(intra, "intra.links_per_pair", t.intra.links_per_pair);
    if (t.intra.links_per_gpu > 0) w.integer(intra, "intra.links_per_gpu", t.intra.links_per_gpu);
  }
  doc["intra"] = intra;

  nlohmann::json nic;
  w.integer(nic, "nic.rails", t.nic.rails);
  w.number(nic, "nic.bandwidth_gbits", t.nic.link.bandwidth_Bps, kGigaBits);
  w.number(nic, "nic.latency_us", t.nic.link.latency_s, kMicro);
  if (t.nic.achieved != 1) w.number(nic, "nic.achieved_fraction", t.nic.achieved);
  if (!t.nic.affinity.empty())
    nic["affinity"] = rows_with_source(t, "nic.affinity", t.nic.affinity);
  doc["nic"] = nic;

  nlohmann::json fabric;
  fabric["kind"] = fabric_kind_name(t.fabric.kind);
  w.number(fabric, "fabric.bandwidth_gbits", t.fabric.link.bandwidth_Bps, kGigaBits);
  w.number(fabric, "fabric.latency_us", t.fabric.link.latency_s, kMicro);
  if (t.fabric.kind == FabricKind::fat_tree) {
    w.integer(fabric, "fabric.levels", t.fabric.levels);
    w.integer(fabric, "fabric.radix", t.fabric.radix);
    w.number(fabric, "fabric.blocking", t.fabric.blocking);
  } else if (t.fabric.kind == FabricKind::dragonfly) {
    w.integer(fabric, "fabric.groups", t.fabric.groups);
    w.integer(fabric, "fabric.routers_per_group", t.fabric.radix);
    w.integer(fabric, "fabric.global_links_per_router", t.fabric.global_links_per_router);
  }
  doc["fabric"] = fabric;
  return doc;
}

}  // namespace prunex
