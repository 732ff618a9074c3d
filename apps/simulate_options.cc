#include "apps/simulate_options.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/metrics.h"
#include "backends/simgrid/calibration.h"
#include "engine/error.h"
#include "engine/mask_model.h"
#include "engine/sparsity_spec.h"
#include "topologies/topology_io.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {
namespace {

std::map<std::string, double> densities_of(const nlohmann::json& d, const std::string& where) {
  std::map<std::string, double> out;
  for (const auto& [name, v] : d.items()) {
    PRUNEX_USAGE(v.is_number(), where, ": density of ", name, " is not a number");
    out[name] = v.get<double>();
  }
  return out;
}

// A live run's metrics.json for --masks, after checking it was written for `model`; its
// sparsity kinds replace `sparsity`.
nlohmann::json read_masks_run(const std::string& path, const std::string& model,
                              std::string& sparsity) {
  nlohmann::json j = read_json_file(path, "--masks");
  const auto& cfg = j.value("config", nlohmann::json::object());
  const std::string m = cfg.value("model", std::string());
  PRUNEX_USAGE(m == model, "--masks ", path, ": recorded for model '", m, "', simulating '", model,
               "'");
  sparsity = cfg.value("sparsity", sparsity);
  return j;
}

int positive_int(const Args& args, const std::string& name, long fallback) {
  const long v = args.get_int(name, fallback);
  PRUNEX_USAGE(v >= 1 && v <= (1L << 30), "--", name, " must be >= 1 (got ", v, ")");
  return static_cast<int>(v);
}

}  // namespace

std::map<std::string, double> last_densities(const nlohmann::json& run, const std::string& where) {
  const auto& its = run.value("iterations", nlohmann::json::array());
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  const auto& d = its.back().value("density", nlohmann::json::object());
  PRUNEX_USAGE(d.is_object() && !d.empty(), where,
               ": the last iteration records no density (not an hsadmm run?)");
  return densities_of(d, where);
}

RecordedMasks payload_masks(const nlohmann::json& run, const ModelLayout& layout,
                            const SparsitySpec& spec, const std::string& where) {
  const auto& its = run.value("iterations", nlohmann::json::array());
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  RecordedMasks out;
  std::vector<std::map<std::string, double>> seen;
  for (size_t k = 0; k < its.size(); ++k) {
    const char* key = its[k].contains("payload_density") ? "payload_density" : "density";
    const auto& d = its[k].value(key, nlohmann::json::object());
    PRUNEX_USAGE(d.is_object() && !d.empty(), where, ": iteration ", k + 1, " records no ", key,
                 " (not an hsadmm run?)");
    auto dens = densities_of(d, where);
    size_t i = 0;
    while (i < seen.size() && seen[i] != dens) ++i;
    if (i == seen.size()) {
      out.masks.push_back(mask_from_densities(layout, spec, dens, where));
      seen.push_back(std::move(dens));
    }
    out.of_iteration.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<Option> simulate_model_options() {
  return {
      {"gpus-per-node", "P", "GPUs per node (at most the topology's)", "the topology's"},
      {"model", "M", "model from the layer tables (prunex model-info)", "resnet152"},
      {"classes", "C", "output classes", "10"},
      {"input", "N", "input size (square)", "32"},
      {"input-channels", "N", "input channels (3 for CIFAR-10, 1 for Fashion-MNIST)", "3"},
      {"iterations", "N", "outer iterations", "60"},
      {"local-epochs", "E", "local epochs per outer iteration", "1"},
      {"local-steps", "N",
       "local steps (full batches) per outer iteration instead of --local-epochs (0: epochs)", "0"},
      {"ddp-overlap", "BOOL",
       "ddp: start a bucket's all-reduce during backward (false: after it, as a live run with "
       "--sync-phases)",
       "true"},
      {"batch", "B", "batch per GPU (paper: 128)", "128"},
      {"samples", "N", "training samples per epoch (CIFAR-10: 50000)", "50000"},
      {"sparsity", "KINDS", "filter, channel, shape joined by '+'", "channel"},
      {"keep", "F", "fraction of groups each node's projection keeps, (0, 1]", "0.5"},
      {"union-growth", "G",
       "probability that a node keeps a group another node pruned, [0, 1]: the union of M node "
       "masks keeps 1 - (1 - keep)(1 - G)^(M-1) of the groups (0: nodes agree; keep: "
       "independent)",
       "0"},
      {"masks", "FILE",
       "metrics.json of a live hsadmm run: its last global mask densities (hsadmm: each "
       "iteration's payload mask, replayed)",
       ""},
      {"t-freeze", "T", "mask frozen after iteration T (no mask_sync afterwards); 0 = never", "0"},
      {"bucket-mib", "MIB", "H-SADMM inter-node bucket size", "32"},
      {"topk-ratio", "R", "Top-K: kept fraction of each layer's gradient", "0.01"},
      {"network-model", "NAME", "SimGrid network model: CM02, LV08, SMPI, IB", "CM02"},
      {"calibration", "FILE",
       "calibration.json from prunex calibrate: its latencies, bandwidths, compute and memory "
       "speeds replace the topology's",
       ""},
      {"algo", "A", "collective algorithm: ring, tree, hierarchical", "ring"},
  };
}

Topology load_sim_topology(const Args& args) {
  const auto name = args.get("topology");
  PRUNEX_USAGE(name.has_value(), "--topology is required (a preset name or a JSON file)");
  return load_topology(*name);
}

void apply_calibration_option(const Args& args, Topology& t, sim::SimConfig& cfg) {
  const auto file = args.get("calibration");
  if (!file) return;
  const sim::Calibration c = sim::read_calibration(*file);
  if (!c.topology.empty() && c.topology != t.name)
    std::fprintf(stderr, "note: %s was fitted on topology %s, applied to %s\n", file->c_str(),
                 c.topology.c_str(), t.name.c_str());
  t = sim::apply_calibration(std::move(t), c, cfg.nodes * cfg.gpus_per_node);
  cfg.op_costs = sim::op_costs(c, t, cfg.nodes, cfg.gpus_per_node);
  cfg.op_costs_warm = sim::op_costs(c, t, cfg.nodes, cfg.gpus_per_node, /*warm=*/true);
  cfg.memory_Bps = sim::memory_costs(c, cfg.nodes * cfg.gpus_per_node);
}

Topology fit_topology(Topology t, int nodes, int gpus_per_node) {
  PRUNEX_USAGE(gpus_per_node >= 1 && gpus_per_node <= t.gpus_per_node,
               "--gpus-per-node must be in [1, ", t.gpus_per_node, "] for topology ", t.name,
               " (got ", gpus_per_node, ")");
  PRUNEX_USAGE(nodes >= 1 && nodes <= (1 << 20), "--nodes must be in [1, 1048576] (got ", nodes,
               ")");
  if (nodes > t.nodes) {
    std::fprintf(stderr, "note: topology %s has %d nodes; scaled out to %d (scale_to_nodes)\n",
                 t.name.c_str(), t.nodes, nodes);
    t = scale_to_nodes(t, nodes);
  }
  return t;
}

sim::SimulateSpec base_spec(const Args& args, const std::string& strategy) {
  sim::SimulateSpec s;
  const Strategy st = parse_strategy(strategy);
  const std::string model = args.get_or("model", "resnet152");
  s.layout = make_layout(model, positive_int(args, "classes", 10), positive_int(args, "input", 32),
                         positive_int(args, "input-channels", 3));
  s.plan.strategy = st;
  s.plan.batch = positive_int(args, "batch", 128);
  s.plan.samples = positive_int(args, "samples", kCifar10TrainSamples);
  s.plan.local_epochs = positive_int(args, "local-epochs", 1);
  const long local_steps = args.get_int("local-steps", 0);
  PRUNEX_USAGE(local_steps >= 0 && local_steps <= (1L << 30), "--local-steps must be >= 0 (got ",
               local_steps, ")");
  s.plan.local_steps = local_steps;
  const std::string overlap = args.get_or("ddp-overlap", "true");
  PRUNEX_USAGE(overlap == "true" || overlap == "false",
               "--ddp-overlap must be true or false (got '", overlap, "')");
  s.plan.ddp_overlap = overlap == "true";
  const double bucket_mib = args.get_double("bucket-mib", 32);
  PRUNEX_USAGE(bucket_mib > 0 && bucket_mib <= 4096, "--bucket-mib must be in (0, 4096] (got ",
               bucket_mib, ")");
  s.plan.bucket_bytes = static_cast<int64_t>(bucket_mib * (1 << 20));
  s.plan.topk_ratio = args.get_double("topk-ratio", 0.01);
  PRUNEX_USAGE(s.plan.topk_ratio > 0 && s.plan.topk_ratio <= 1,
               "--topk-ratio must be in (0, 1] (got ", s.plan.topk_ratio, ")");
  s.iterations = positive_int(args, "iterations", 60);
  const long tf = args.get_int("t-freeze", 0);
  PRUNEX_USAGE(tf >= 0, "--t-freeze must be >= 0 (got ", tf, ")");
  s.t_freeze = static_cast<int>(tf);
  const double keep = args.get_double("keep", 0.5);
  PRUNEX_USAGE(keep > 0 && keep <= 1, "--keep must be in (0, 1] (got ", keep, ")");
  const double growth = args.get_double("union-growth", 0);
  PRUNEX_USAGE(growth >= 0 && growth <= 1, "--union-growth must be in [0, 1] (got ", growth, ")");
  std::string sparsity = args.get_or("sparsity", "channel");
  nlohmann::json masks = nullptr, run;
  if (auto file = args.get("masks")) {
    run = read_masks_run(*file, model, sparsity);
    masks = *file;
  }
  const SparsitySpec spec =
      SparsitySpec::build(s.layout, parse_sparsity_kinds(sparsity), KeepRate::of_fraction(keep));
  if (!masks.is_null()) {
    const std::string where = "--masks " + masks.get<std::string>();
    s.mask = mask_from_densities(s.layout, spec, last_densities(run, where), where);
    // H-SADMM replays the run's payload masks iteration by iteration (before the mask
    // freezes they are unions of node masks, larger than the final mask).
    if (s.plan.strategy == Strategy::hsadmm) {
      s.payload_masks = payload_masks(run, s.layout, spec, where);
    }
  }
  s.sim.network_model = args.get_or("network-model", "CM02");
  s.sim.plan_algo = sim::parse_algo(args.get_or("algo", "ring"));
  s.config = {
      {"model", model},
      {"classes", s.layout.classes},
      {"input", s.layout.input_size},
      {"strategy", strategy},
      {"iterations", s.iterations},
      {"local_epochs", s.plan.local_epochs},
      {"local_steps", s.plan.local_steps},
      {"ddp_overlap", s.plan.ddp_overlap},
      {"input_channels", s.layout.input_channels},
      {"batch", s.plan.batch},
      {"samples", s.plan.samples},
      {"sparsity", sparsity},
      {"keep", keep},
      {"union_growth", masks.is_null() ? nlohmann::json(growth) : nlohmann::json()},
      {"masks", masks},
      {"t_freeze", s.t_freeze},
      {"bucket_mib", bucket_mib},
      {"topk_ratio", s.plan.topk_ratio},
      {"algo", sim::algo_name(s.sim.plan_algo)},
      {"compute_model",
       "3 x forward FLOPs per sample x the GPU's shard per epoch, at the effective FLOP/s"}};
  // Remembered for shape_spec(): the synthetic mask depends on the node count.
  s.config["parameters"] = s.layout.parameters();
  s.config["forward_gflops_per_sample"] = s.layout.forward_flops() / 1e9;
  return s;
}

void shape_spec(sim::SimulateSpec& s, const Args& args, const Topology& topology_in, int nodes,
                int gpus_per_node) {
  s.sim.nodes = nodes;
  s.sim.gpus_per_node = gpus_per_node;
  s.topology = topology_in;
  apply_calibration_option(args, s.topology, s.sim);
  const Topology& topology = s.topology;
  s.config["calibration"] =
      args.has("calibration") ? nlohmann::json(*args.get("calibration")) : nlohmann::json();
  s.config["topology"] = topology.name;
  s.config["nodes"] = nodes;
  s.config["gpus_per_node"] = gpus_per_node;
  const auto source_of = [&](const char* key) {
    const auto it = topology.sources.find(key);
    return it != topology.sources.end() ? it->second : std::string("not stated");
  };
  s.config["compute_calibration"] = {{"gpu", topology.gpu.name},
                                     {"effective_flops", topology.gpu.effective_flops()},
                                     {"efficiency", topology.gpu.efficiency},
                                     {"source", source_of("gpu.efficiency")},
                                     {"memory_bandwidth_Bps", topology.gpu.mem_bandwidth_Bps},
                                     {"memory_phases_Bps", s.sim.memory_Bps}};
  s.config["links"] = {{"intra",
                        {{"latency_s", topology.intra.link.latency_s},
                         {"bandwidth_Bps", topology.intra.link.bandwidth_Bps},
                         {"source", source_of("intra.bandwidth_gbs")}}},
                       {"nic",
                        {{"latency_s", topology.nic.link.latency_s},
                         {"bandwidth_Bps", topology.nic.link.bandwidth_Bps},
                         {"rails", topology.nic.rails},
                         {"source", source_of("nic.bandwidth_gbits")}}}};
  if (args.has("masks")) return;  // the recorded global mask, whatever the size
  const SparsitySpec spec =
      SparsitySpec::build(s.layout, parse_sparsity_kinds(s.config["sparsity"].get<std::string>()),
                          KeepRate::of_fraction(s.config["keep"].get<double>()));
  // hsadmm-flat has no union: its global mask is one projection (M = 1).
  const int union_of = s.plan.strategy == Strategy::hsadmm ? nodes : 1;
  s.mask = synthetic_union_mask(s.layout, spec, s.config["union_growth"].get<double>(), union_of);
}

}  // namespace prunex::cli
