#include "backends/simgrid/simulate_config.h"

#include <cstdio>

#include "backends/simgrid/calibration.h"
#include "backends/simgrid/footprint.h"
#include "engine/error.h"
#include "engine/mask_model.h"
#include "engine/sparsity_spec.h"
#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "records/host_memory.h"
#include "topologies/topology_io.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::sim {
namespace {

using C = SimulateConfig;
constexpr long kMaxCount = 1L << 30;  // sizes beyond this are typos, not experiments

nlohmann::json json_of(const std::string& s) {
  return s.empty() ? nlohmann::json() : nlohmann::json(s);
}

SimulateField text(std::string name, std::string vn, std::string help, std::string C::*m,
                   bool required = false) {
  return {name, vn, help,
          [m, name, required](C& c, const std::string& v) {
            PRUNEX_USAGE(!required || !v.empty(), "--", name, " must not be empty");
            c.*m = v;
          },
          [m](const C& c) { return json_of(c.*m); }};
}

SimulateField integer(std::string name, std::string vn, std::string help, int C::*m, long lo,
                      long hi) {
  return {name, vn, help,
          [m, name, lo, hi](C& c, const std::string& v) {
            c.*m = static_cast<int>(parse_long(v, "--" + name, lo, hi));
          },
          [m](const C& c) { return nlohmann::json(c.*m); }};
}

SimulateField long_integer(std::string name, std::string vn, std::string help, long C::*m, long lo,
                           long hi) {
  return {
      name, vn, help,
      [m, name, lo, hi](C& c, const std::string& v) { c.*m = parse_long(v, "--" + name, lo, hi); },
      [m](const C& c) { return nlohmann::json(c.*m); }};
}

// true or false.
SimulateField boolean(std::string name, std::string help, bool C::*m) {
  return {name, "BOOL", help,
          [m, name](C& c, const std::string& v) {
            PRUNEX_USAGE(v == "true" || v == "false", "--", name, " must be true or false, got '",
                         v, "'");
            c.*m = v == "true";
          },
          [m](const C& c) { return nlohmann::json(c.*m); }};
}

// A number in (lo, hi] (open_low) or [lo, hi].
SimulateField real(std::string name, std::string vn, std::string help, double C::*m, double lo,
                   double hi, bool open_low) {
  return {name, vn, help,
          [m, name, lo, hi, open_low](C& c, const std::string& v) {
            const double x = parse_double(v, "--" + name);
            PRUNEX_USAGE((open_low ? x > lo : x >= lo) && x <= hi, "--", name, " must be in ",
                         open_low ? "(" : "[", lo, ", ", hi, "], got '", v, "'");
            c.*m = x;
          },
          [m](const C& c) { return nlohmann::json(c.*m); }};
}

}  // namespace

const std::vector<SimulateField>& simulate_fields() {
  static const std::vector<SimulateField> fields = {
      text("topology", "NAME|FILE", "cluster preset or topology JSON file (required)", &C::topology,
           true),
      integer("nodes", "M", "nodes (0: the topology's; more than it has: scaled out)", &C::nodes, 0,
              kMaxScaledNodes),
      integer("gpus-per-node", "P", "GPUs per node (0: the topology's; at most the topology's)",
              &C::gpus_per_node, 0, 1 << 20),
      {"strategy", "S", "hsadmm, hsadmm-flat, hsadmm-rail, ddp, topk, fp16, pactrain or cgx",
       [](C& c, const std::string& v) { c.strategy = parse_strategy(v); },
       [](const C& c) { return nlohmann::json(std::string(strategy_name(c.strategy))); }},
      text("model", "M", "model from the layer tables (prunex model-info)", &C::model, true),
      integer("classes", "C", "output classes", &C::classes, 1, kMaxCount),
      integer("input", "N", "input size (square)", &C::input, 1, kMaxCount),
      integer("input-channels", "N", "input channels (3 for CIFAR-10, 1 for Fashion-MNIST)",
              &C::input_channels, 1, kMaxCount),
      integer("iterations", "N", "outer iterations", &C::iterations, 1, kMaxCount),
      integer("local-epochs", "E", "local epochs per outer iteration", &C::local_epochs, 1,
              kMaxCount),
      long_integer("local-steps", "N",
                   "local steps (full batches) per outer iteration instead of --local-epochs "
                   "(0: epochs)",
                   &C::local_steps, 0, kMaxCount),
      boolean("ddp-overlap",
              "ddp: start a bucket's all-reduce during backward (false: after it, as a live run "
              "with --sync-phases)",
              &C::ddp_overlap),
      integer("batch", "B", "batch per GPU (paper: 128)", &C::batch, 1, kMaxCount),
      long_integer("samples", "N", "training samples per epoch (CIFAR-10: 50000)", &C::samples, 1,
                   kMaxCount),
      {"sparsity", "KINDS", "filter, channel, shape joined by '+'",
       [](C& c, const std::string& v) {
         parse_sparsity_kinds(v);
         c.sparsity = v;
       },
       [](const C& c) { return nlohmann::json(c.sparsity); }},
      real("keep", "F", "fraction of groups each node's projection keeps, (0, 1]", &C::keep, 0, 1,
           true),
      real("union-growth", "G",
           "probability that a node keeps a group another node pruned, [0, 1]: the union of M "
           "node masks keeps 1 - (1 - keep)(1 - G)^(M-1) of the groups (0: nodes agree; keep: "
           "independent)",
           &C::union_growth, 0, 1, false),
      text("masks", "FILE",
           "metrics.json of a live hsadmm run: its last global mask densities (hsadmm: each "
           "iteration's payload mask, replayed)",
           &C::masks),
      integer("t-freeze", "T", "mask frozen after iteration T (no mask_sync afterwards); 0 = never",
              &C::t_freeze, 0, kMaxCount),
      real("bucket-mib", "MIB", "H-SADMM inter-node bucket size", &C::bucket_mib, 0, 4096, true),
      {"wire-dtype", "T",
       "hsadmm / hsadmm-rail: the compact inter-node payload's type, fp32, bf16 or fp16 (summed "
       "in that type)",
       [](C& c, const std::string& v) {
         parse_wire_dtype(v);
         c.wire_dtype = v;
       },
       [](const C& c) { return nlohmann::json(c.wire_dtype); }},
      boolean("pipeline-buckets",
              "hsadmm / hsadmm-rail: bucket b's inter-node all-reduce runs while b + 1 is packed "
              "and b - 1 unpacked",
              &C::pipeline_buckets),
      real("topk-ratio", "R", "Top-K: kept fraction of each layer's gradient", &C::topk_ratio, 0, 1,
           true),
      real("prune-ratio", "R",
           "pactrain: pruned fraction of every conv and fc weight (modeled: every bucket compact)",
           &C::prune_ratio, 0, 0.999999, false),
      boolean("ternary", "pactrain: int8 TernGrad levels on the wire (plus a scaler per bucket)",
              &C::ternary),
      integer("bits", "B", "cgx: quantization bits per value", &C::bits, 1, 8),
      integer("bucket-size", "N", "cgx: values per quantization bucket", &C::bucket_size, 1,
              1 << 30),
      {"network-model", "NAME", "SimGrid network model: CM02, LV08, SMPI, IB",
       [](C& c, const std::string& v) {
         PRUNEX_USAGE(known_network_models().count(v), "unknown network model '", v,
                      "' (CM02, LV08, SMPI, IB)");
         c.network_model = v;
       },
       [](const C& c) { return nlohmann::json(c.network_model); }},
      {"fabric-routing", "R",
       "fat-tree uplinks: pooled (every flow leaving a leaf shares its uplink bundle) or ecmp "
       "(each flow hashed onto one uplink, --ecmp-seed)",
       [](C& c, const std::string& v) { c.fabric_routing = parse_fabric_routing(v); },
       [](const C& c) { return nlohmann::json(fabric_routing_name(c.fabric_routing)); }},
      long_integer("ecmp-seed", "N", "hash seed of --fabric-routing ecmp", &C::ecmp_seed, 0,
                   kMaxCount),
      boolean("nccl-protocols",
              "each collective in the NCCL protocol (LL, LL128, Simple) NCCL's tuning picks for "
              "its size: its base latency and wire overhead (false: plain alpha-beta flows)",
              &C::nccl_protocols),
      text("calibration", "FILE",
           "calibration.json from prunex calibrate: its latencies, bandwidths, compute and "
           "memory speeds replace the topology's",
           &C::calibration),
      {"algo", "A",
       "collective algorithm: ring, tree, hierarchical, mpi (Open MPI's own choice per size; "
       "a calibration fitted with --algo mpi sets it)",
       [](C& c, const std::string& v) { c.algo = parse_algo(v); },
       [](const C& c) { return nlohmann::json(algo_name(c.algo)); }},
      text("straggler-gpus", "LIST",
           "what-if: these GPUs (world ranks, comma-separated) compute --straggler-factor "
           "times slower",
           &C::straggler_gpus),
      real("straggler-fraction", "F",
           "what-if: this fraction of the GPUs, drawn with --straggler-seed, computes "
           "--straggler-factor times slower (at least one GPU when > 0)",
           &C::straggler_fraction, 0, 1, false),
      real("straggler-factor", "X", "a straggler's compute takes X times as long (>= 1)",
           &C::straggler_factor, 1, 1e6, false),
      long_integer("straggler-seed", "N", "seed of the --straggler-fraction draw",
                   &C::straggler_seed, 0, kMaxCount),
      text("degrade-nic", "SPEC",
           "what-if: NIC rails at a fraction of their bandwidth, NODE[:RAIL]=FRACTION,... "
           "(no rail: every rail of the node)",
           &C::degrade_nic),
      real("mtbf-hours", "H",
           "what-if: mean time between failures of one node (exponential, independent); the "
           "run reports its expected time to train with checkpoints (0: no failures)",
           &C::mtbf_hours, 0, 1e9, false),
      real("checkpoint-minutes", "T",
           "compute time between checkpoints (0: Daly's optimum interval)", &C::checkpoint_minutes,
           0, 1e9, false),
      real("checkpoint-seconds", "S", "time to write one checkpoint (with --mtbf-hours)",
           &C::checkpoint_seconds, 0, 1e9, false),
      real("restart-seconds", "S", "time to restart from a checkpoint (with --mtbf-hours)",
           &C::restart_seconds, 0, 1e9, false),
      text("out", "DIR", "output folder", &C::out, true),
  };
  return fields;
}

namespace {

std::map<std::string, double> densities_of(const nlohmann::json& d, const std::string& where) {
  std::map<std::string, double> out;
  for (const auto& [name, v] : d.items()) {
    PRUNEX_USAGE(v.is_number(), where, ": density of ", name, " is not a number");
    out[name] = v.get<double>();
  }
  return out;
}

// j[key] when j is an object that has it, else null (json::value() throws on a non-object:
// a metrics.json that is a number or an array must be a usage error, not a crash).
const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  const auto it = j.find(key);
  return it == j.end() ? null : *it;
}

}  // namespace

void apply_calibration_file(const std::string& file, Topology& t, SimConfig& cfg) {
  const Calibration c = read_calibration(file);
  const int rails = std::max(1, t.nic.rails);
  if (!c.topology.empty() && c.topology != t.name)
    std::fprintf(stderr, "note: %s was fitted on topology %s, applied to %s\n", file.c_str(),
                 c.topology.c_str(), t.name.c_str());
  t = sim::apply_calibration(std::move(t), c, cfg.nodes * cfg.gpus_per_node);
  cfg.op_costs = op_costs(c, t, cfg.nodes, cfg.gpus_per_node);
  cfg.op_costs_warm = op_costs(c, t, cfg.nodes, cfg.gpus_per_node, /*warm=*/true);
  cfg.memory_Bps = memory_costs(c, cfg.nodes * cfg.gpus_per_node);
  // Op costs fitted to Open MPI's algorithms only hold for those algorithms.
  if (c.algo == Algo::mpi && cfg.plan_algo != Algo::mpi) {
    std::fprintf(stderr, "note: %s fitted Open MPI's algorithms: collectives run as --algo mpi\n",
                 file.c_str());
    cfg.plan_algo = Algo::mpi;
  }
  // A fitted inter tier is one path per node (set_tier): it stands for the node's rails.
  if (c.tiers.count("inter")) cfg.pooled_rails = rails;
}

std::map<std::string, double> last_densities(const nlohmann::json& run, const std::string& where) {
  const auto& its = member(run, "iterations");
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  const auto& d = member(its.back(), "density");
  PRUNEX_USAGE(d.is_object() && !d.empty(), where,
               ": the last iteration records no density (not an hsadmm run?)");
  return densities_of(d, where);
}

RecordedMasks payload_masks(const nlohmann::json& run, const ModelLayout& layout,
                            const SparsitySpec& spec, const std::string& where) {
  const auto& its = member(run, "iterations");
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  RecordedMasks out;
  std::vector<std::map<std::string, double>> seen;
  for (size_t k = 0; k < its.size(); ++k) {
    const char* key = member(its[k], "payload_density").is_null() ? "density" : "payload_density";
    const auto& d = member(its[k], key);
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

SimulateSpec make_spec(const SimulateConfig& cfg_in, bool records) {
  SimulateConfig cfg = cfg_in;
  PRUNEX_USAGE(!cfg.topology.empty(), "--topology is required (a preset name or a JSON file)");
  Topology topology = load_topology(cfg.topology);
  if (cfg.gpus_per_node == 0) cfg.gpus_per_node = topology.gpus_per_node;
  if (cfg.nodes == 0) cfg.nodes = topology.nodes;
  PRUNEX_USAGE(cfg.gpus_per_node <= topology.gpus_per_node, "--gpus-per-node must be in [1, ",
               topology.gpus_per_node, "] for topology ", topology.name, " (got ",
               cfg.gpus_per_node, ")");
  const double memory_bytes =
      estimate_simulation_bytes(cfg.nodes, cfg.gpus_per_node, records ? cfg.iterations : 0);
  check_fits_in_memory(memory_bytes,
                       "a platform of " + std::to_string(cfg.nodes) + " x " +
                           std::to_string(cfg.gpus_per_node) + " GPUs",
                       "fewer nodes or iterations, a bigger machine, or PRUNEX_MAX_MEMORY_GIB");
  if (cfg.nodes > topology.nodes) {
    std::fprintf(stderr, "note: topology %s has %d nodes; scaled out to %d (scale_to_nodes)\n",
                 topology.name.c_str(), topology.nodes, cfg.nodes);
    topology = scale_to_nodes(topology, cfg.nodes);
  }

  SimulateSpec s;
  s.memory_bytes = memory_bytes;
  s.layout = make_layout(cfg.model, cfg.classes, cfg.input, cfg.input_channels);
  s.plan.strategy = cfg.strategy;
  s.plan.batch = cfg.batch;
  s.plan.samples = cfg.samples;
  s.plan.local_epochs = cfg.local_epochs;
  s.plan.local_steps = cfg.local_steps;
  s.plan.ddp_overlap = cfg.ddp_overlap;
  s.plan.bucket_bytes = static_cast<int64_t>(cfg.bucket_mib * (1 << 20));
  s.plan.wire_dtype = parse_wire_dtype(cfg.wire_dtype);
  s.plan.pipeline_buckets = cfg.pipeline_buckets;
  PRUNEX_USAGE(!cfg.pipeline_buckets || packs_compact_payload(cfg.strategy),
               "--pipeline-buckets applies to hsadmm and hsadmm-rail only");
  PRUNEX_USAGE(s.plan.wire_dtype == DType::f32 || packs_compact_payload(cfg.strategy),
               "--wire-dtype ", cfg.wire_dtype, " applies to hsadmm and hsadmm-rail only");
  s.plan.topk_ratio = cfg.topk_ratio;
  s.plan.prune_ratio = cfg.prune_ratio;
  s.plan.ternary = cfg.ternary;
  s.plan.cgx_bits = cfg.bits;
  s.plan.cgx_bucket = cfg.bucket_size;
  s.iterations = cfg.iterations;
  s.t_freeze = cfg.t_freeze;
  s.sim.nodes = cfg.nodes;
  s.sim.gpus_per_node = cfg.gpus_per_node;
  s.sim.network_model = cfg.network_model;
  check_fabric_routing(topology, cfg.fabric_routing);
  s.sim.fabric_routing = cfg.fabric_routing;
  s.sim.ecmp_seed = static_cast<std::uint64_t>(cfg.ecmp_seed);
  s.sim.nccl_protocols = cfg.nccl_protocols;
  s.sim.plan_algo = cfg.algo;
  apply_what_if(cfg, topology, s.sim);
  s.failures = {cfg.mtbf_hours * 3600, cfg.checkpoint_minutes * 60, cfg.checkpoint_seconds,
                cfg.restart_seconds};
  s.topology = std::move(topology);
  if (!cfg.calibration.empty()) apply_calibration_file(cfg.calibration, s.topology, s.sim);
  cfg.algo = s.sim.plan_algo;  // recorded as run

  // Masks: a live run's (replayed), or the synthetic union model for this node count.
  if (!cfg.masks.empty()) {
    const std::string where = "--masks " + cfg.masks;
    nlohmann::json run = read_json_file(cfg.masks, "--masks");
    PRUNEX_USAGE(member(run, "config").is_object(), where,
                 ": not a metrics.json (no \"config\" object)");
    const nlohmann::json rcfg = canonical_config(run["config"]);
    const nlohmann::json& m = member(rcfg, "model");
    PRUNEX_USAGE(m.is_string() && m.get<std::string>() == cfg.model, where, ": recorded for model ",
                 m.dump(), ", simulating '", cfg.model, "'");
    if (const nlohmann::json& sp = member(rcfg, "sparsity"); !sp.is_null()) {
      PRUNEX_USAGE(sp.is_string(), where, ": config.sparsity is not a string");
      cfg.sparsity = sp.get<std::string>();
    }
    cfg.union_growth = 0;  // not used: the recorded masks
    const SparsitySpec spec = SparsitySpec::build(s.layout, parse_sparsity_kinds(cfg.sparsity),
                                                  KeepRate::of_fraction(cfg.keep));
    s.mask = mask_from_densities(s.layout, spec, last_densities(run, where), where);
    // H-SADMM replays the run's payload masks iteration by iteration (before the mask
    // freezes they are unions of node masks, larger than the final mask).
    if (cfg.strategy == Strategy::hsadmm)
      s.payload_masks = payload_masks(run, s.layout, spec, where);
  } else {
    const SparsitySpec spec = SparsitySpec::build(s.layout, parse_sparsity_kinds(cfg.sparsity),
                                                  KeepRate::of_fraction(cfg.keep));
    // hsadmm-flat has no union: its global mask is one projection (M = 1).
    const int union_of = cfg.strategy == Strategy::hsadmm ? cfg.nodes : 1;
    s.mask = synthetic_union_mask(s.layout, spec, cfg.union_growth, union_of);
  }

  // The record: every field (the shape as used), then what the run was.
  s.config = config_json(simulate_fields(), cfg);
  if (!cfg.masks.empty()) s.config["union-growth"] = nullptr;
  const Topology& t = s.topology;
  const auto source_of = [&](const char* key) {
    const auto it = t.sources.find(key);
    return it != t.sources.end() ? it->second : std::string("not stated");
  };
  s.config["compute-model"] =
      "3 x forward FLOPs per sample x the GPU's shard per epoch, at the effective FLOP/s";
  s.config["parameters"] = s.layout.parameters();
  s.config["forward-gflops-per-sample"] = s.layout.forward_flops() / 1e9;
  s.config["compute-calibration"] = {{"gpu", t.gpu.name},
                                     {"effective_flops", t.gpu.effective_flops()},
                                     {"efficiency", t.gpu.efficiency},
                                     {"source", source_of("gpu.efficiency")},
                                     {"memory_bandwidth_Bps", t.gpu.mem_bandwidth_Bps},
                                     {"memory_phases_Bps", s.sim.memory_Bps}};
  s.config["links"] = {{"intra",
                        {{"latency_s", t.intra.link.latency_s},
                         {"bandwidth_Bps", t.intra.link.bandwidth_Bps},
                         {"source", source_of("intra.bandwidth_gbs")}}},
                       {"nic",
                        {{"latency_s", t.nic.link.latency_s},
                         {"bandwidth_Bps", t.nic.link.bandwidth_Bps},
                         {"rails", t.nic.rails},
                         {"source", source_of("nic.bandwidth_gbits")}}}};
  return s;
}

}  // namespace prunex::sim
