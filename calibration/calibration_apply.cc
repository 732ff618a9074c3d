#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "calibration/calibration.h"
#include "netmodel/closed_form.h"
#include "netmodel/platform_settings.h"

namespace prunex::sim {

std::map<std::string, std::vector<SimConfig::OpCost>> op_costs(const Calibration& c,
                                                               const Topology& t, int nodes,
                                                               int gpus_per_node, bool warm) {
  std::map<std::string, std::vector<SimConfig::OpCost>> out;
  // Relative links: an op's bytes scale against the links its fit was made on (the inter tier
  // as fitted), so on t's links (the tier scaled by apply_calibration) the op keeps its
  // fitted efficiency; its latency moves by the route's latency difference.
  Topology fitted_links = t;
  double latency_delta = 0;
  const auto inter = c.tiers.find("inter");
  if (c.links_relative && inter != c.tiers.end()) {
    // (A latency-only fit keeps the links it was fitted on, as apply_calibration keeps t's.)
    set_tier(fitted_links, "inter", inter->second.latency_s,
             inter->second.bandwidth_Bps >= kUnboundedBps ? c.inter_base_Bps
                                                          : inter->second.bandwidth_Bps);
    latency_delta = t.nic.link.latency_s - inter->second.latency_s;
  }
  for (const auto& [key, segments] : warm ? c.ops_warm : c.ops) {
    const Group group = parse_group(key.substr(key.find('/') + 1));
    const double link = group_link_Bps(fitted_links, group, nodes, gpus_per_node);
    const double shift = group == Group::intra ? 0.0 : latency_delta;
    for (const auto& f : segments)
      out[key].push_back(
          {f.max_bytes, f.latency_s + shift, link / f.bandwidth_Bps, f.gpus_per_node});
  }
  return out;
}

double group_link_Bps(const Topology& t, Group group, int nodes, int gpus_per_node) {
  const HopCosts h = hop_costs(t, nodes);
  if (group == Group::intra) return h.intra_Bps;
  if (group == Group::inter || group == Group::rail) return h.inter_Bps;
  return world_ring_channel_Bps(t, nodes, gpus_per_node);
}

std::map<std::string, double> memory_costs(const Calibration& c, int ranks) {
  std::map<std::string, double> out;
  for (const auto& [phase, f] : c.memory_phases)
    out[phase] = f.bandwidth_Bps / host_share(c, f.ranks) * host_share(c, ranks);
  return out;
}

double node_inter_Bps(const Topology& t) {
  double rail = t.nic.link.bandwidth_Bps;
  if (t.fabric.kind == FabricKind::star && t.fabric.link.bandwidth_Bps > 0)
    rail = std::min(rail, t.fabric.link.bandwidth_Bps);
  return std::max(1, t.nic.rails) * rail;
}

double node_inter_latency_s(const Topology& t) {
  return t.nic.link.latency_s + t.fabric.link.latency_s;
}

Topology apply_calibration(Topology t, const Calibration& c, int ranks) {
  std::string from = c.inputs.empty() ? "(no inputs)" : c.inputs.front();
  if (c.inputs.size() > 1) from += " and " + std::to_string(c.inputs.size() - 1) + " more";
  const double link_ratio = c.links_relative ? node_inter_Bps(t) / c.inter_base_Bps : 1.0;
  const double latency_delta =
      c.links_relative ? node_inter_latency_s(t) - c.inter_base_latency_s : 0.0;
  for (const auto& [tier, f] : c.tiers) {
    const bool relative = c.links_relative && tier == "inter";
    // A tier whose rows fix no bandwidth (latency only) keeps the topology's: a link of
    // unbounded speed would carry the per-op costs' bytes scaled by link over op speed (1e24
    // x) at magnitudes SimGrid does not resolve, and ops without a fit would cost no time.
    const bool unbounded = f.bandwidth_Bps >= kUnboundedBps;
    const double bandwidth = unbounded
                                 ? (tier == "intra" ? hop_costs(t, 1).intra_Bps : node_inter_Bps(t))
                                 : f.bandwidth_Bps * (relative ? link_ratio : 1.0);
    set_tier(t, tier, f.latency_s + (relative ? latency_delta : 0.0), bandwidth);
    std::string src = "calibrated: prunex calibrate, ring closed form fitted to " +
                      std::to_string(f.points) + " " + tier + " bench rows from " + from +
                      (unbounded ? " (latency only: the topology's bandwidth kept)" : "");
    if (relative) {
      char buf[128];
      std::snprintf(buf, sizeof buf,
                    ", relative to the links it was fitted on (bandwidth x %.4g, latency %+.4g us)",
                    link_ratio, latency_delta * 1e6);
      src += buf;
    }
    if (tier == "intra") {
      t.sources["intra.bandwidth_gbs"] = src;
      t.sources["intra.latency_us"] = src;
    } else {
      t.sources["nic.bandwidth_gbits"] = src;
      t.sources["nic.latency_us"] = src;
      t.sources["nic.rails"] = src + " (one path per emulated node)";
      t.sources["fabric.bandwidth_gbits"] = src + " (as the NIC: not the bottleneck)";
      t.sources["fabric.latency_us"] = src + " (folded into the NIC latency)";
    }
  }
  auto share = [&](int r) { return host_share(c, r); };
  if (c.compute) {
    t.gpu.fp32_flops = c.compute->flops_per_rank / share(c.compute->ranks) * share(ranks);
    t.gpu.efficiency = 1.0;
    const std::string src =
        "calibrated: " + c.compute->source +
        (c.host_cores > 0 ? ", scaled to " + std::to_string(ranks) + " ranks on " +
                                std::to_string(c.host_cores) + " cores"
                          : std::string());
    t.sources["gpu.fp32_tflops"] = src;
    t.sources["gpu.efficiency"] = "calibrated: 1 (fp32_tflops is the measured effective speed)";
  }
  if (c.memory) {
    t.gpu.mem_bandwidth_Bps = c.memory->bandwidth_Bps / share(c.memory->ranks) * share(ranks);
    t.sources["gpu.memory_bandwidth_gbs"] = "calibrated: " + c.memory->source;
  }
  return t;
}

void apply_calibration_file(const std::string& file, Topology& t, SimConfig& cfg) {
  apply_calibration_file(read_calibration(file), file, t, cfg);
}

void apply_calibration_file(const Calibration& c, const std::string& file, Topology& t,
                            SimConfig& cfg) {
  const int rails = std::max(1, t.nic.rails);
  if (!c.topology.empty() && c.topology != t.name)
    std::fprintf(stderr, "note: %s was fitted on topology %s, applied to %s\n", file.c_str(),
                 c.topology.c_str(), t.name.c_str());
  t = sim::apply_calibration(std::move(t), c, cfg.nodes * cfg.gpus_per_node);
  cfg.op_costs = op_costs(c, t, cfg.nodes, cfg.gpus_per_node);
  cfg.op_costs_warm = op_costs(c, t, cfg.nodes, cfg.gpus_per_node, /*warm=*/true);
  cfg.memory_Bps = memory_costs(c, cfg.nodes * cfg.gpus_per_node);
  // Op costs and tiers fitted to one algorithm (the ring's closed form, or Open MPI's
  // algorithms) only hold for it: the run takes it (the header says so), with a note when
  // another than the default was asked for.
  if (cfg.plan_algo != c.algo && cfg.plan_algo != PlatformSettings{}.algo)
    std::fprintf(stderr, "note: %s fitted %s: collectives run as --algo %s\n", file.c_str(),
                 c.algo == Algo::mpi ? "Open MPI's algorithms" : "the ring's closed form",
                 algo_name(c.algo));
  cfg.plan_algo = c.algo;
  // A fitted inter tier is one path per node (set_tier): it stands for the node's rails.
  if (c.tiers.count("inter")) cfg.pooled_rails = rails;
}

}  // namespace prunex::sim
