#include "simulate/simulate_config.h"

#include <cstdio>
#include <optional>
#include <set>
#include <string>

#include <fmt/core.h>

#include "calibration/calibration.h"
#include "engine/error.h"
#include "engine/pactrain.h"
#include "engine/plan_builder.h"
#include "engine/simulated_masks.h"
#include "engine/sparsity_spec.h"
#include "engine/wire_dtype.h"
#include "host/host_memory.h"
#include "records/json_file.h"
#include "records/run_replay.h"
#include "settings/plan_settings.h"
#include "simulate/footprint.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"
#include "workloads/data/dataset_spec.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::sim {

namespace {

// A note on stderr, once per process: a sweep builds every point's spec here, and the same
// note for each strategy and bandwidth would say nothing new.
void note(const std::string& line) {
  static std::set<std::string> said;
  if (said.insert(line).second) std::fprintf(stderr, "note: %s\n", line.c_str());
}

// The topology of the run: its shape filled in where cfg leaves it to the topology (0),
// checked against the machine's memory (the estimate recorded in s), scaled out to more nodes
// than it has.
Topology load_platform(SimulateConfig& cfg, bool records, SimulateSpec& s) {
  PRUNEX_USAGE(!cfg.topology.empty(), "--topology is required (a preset name or a JSON file)");
  Topology topology = load_topology(cfg.topology);
  if (cfg.gpus_per_node == 0) cfg.gpus_per_node = topology.gpus_per_node;
  if (cfg.nodes == 0) cfg.nodes = topology.nodes;
  PRUNEX_USAGE(cfg.gpus_per_node <= topology.gpus_per_node, "--gpus-per-node must be in [1, ",
               topology.gpus_per_node, "] for topology ", topology.name, " (got ",
               cfg.gpus_per_node, ")");
  s.memory_bytes =
      estimate_simulation_bytes(cfg.nodes, cfg.gpus_per_node, records ? cfg.iterations : 0);
  check_fits_in_memory(s.memory_bytes,
                       "a platform of " + std::to_string(cfg.nodes) + " x " +
                           std::to_string(cfg.gpus_per_node) + " GPUs",
                       "fewer nodes or iterations, a bigger machine, or PRUNEX_MAX_MEMORY_GIB");
  if (cfg.nodes > topology.nodes) {
    note(fmt::format("topology {} has {} nodes; scaled out to {} (the same nodes, more of them)",
                     topology.name, topology.nodes, cfg.nodes));
    topology = scale_to_nodes(topology, cfg.nodes);
  }
  return topology;
}

// Each GPU's shard of --samples against --batch. Local steps are full batches by definition:
// a shard smaller than one is refused. An epoch (--local-epochs) is the shard however small:
// its steps are smaller than --batch (a fixed data set over more GPUs, as the live trainer
// runs it), said in a note rather than silently.
void check_shard(const SimulateConfig& cfg, long shard) {
  if (shard >= cfg.batch) return;
  const long world = static_cast<long>(cfg.nodes) * cfg.gpus_per_node;
  PRUNEX_USAGE(cfg.local_steps == 0, "--local-steps takes full batches: --batch ", cfg.batch,
               " on ", world, " GPUs needs ", world * cfg.batch, " samples, more than --samples ",
               cfg.samples, " (", shard,
               " per GPU): give the data set's size (ImageNet: 1281167) "
               "or a smaller --batch");
  note(fmt::format(
      "--batch {} on {} GPUs is {} samples, more than --samples {}: an epoch is one step of {} "
      "samples per GPU (give the data set's size with --samples)",
      cfg.batch, world, world * cfg.batch, cfg.samples, shard));
}

// The layout and the plan inputs of the run's settings; what a live run would refuse (so
// cannot be modelled) is refused.
void plan_settings(const SimulateConfig& cfg, SimulateSpec& s) {
  // As the live trainer refuses it (workloads/train/ddp_strategy.cc).
  PRUNEX_USAGE(cfg.strategy != Strategy::pactrain || !cfg.pactrain.ternary ||
                   static_cast<long>(cfg.nodes) * cfg.gpus_per_node <= kTernaryMaxRanks,
               "--ternary sums int8 levels, exact for at most ", kTernaryMaxRanks, " ranks (got ",
               static_cast<long>(cfg.nodes) * cfg.gpus_per_node, ")");
  s.layout = make_layout(cfg.model, cfg.classes, cfg.input, cfg.input_channels);
  s.plan = plan_inputs(cfg, cfg.nodes, cfg.gpus_per_node, cfg.samples, cfg.ddp_overlap);
  check_shard(cfg, shard_samples(s.plan));
  PRUNEX_USAGE(!cfg.hsadmm.pipeline_buckets || packs_compact_payload(cfg.strategy),
               "--pipeline-buckets applies to hsadmm and hsadmm-rail only");
  PRUNEX_USAGE(cfg.hsadmm.wire_dtype == DType::f32 || packs_compact_payload(cfg.strategy),
               "--wire-dtype ", wire_dtype_name(cfg.hsadmm.wire_dtype),
               " applies to hsadmm and hsadmm-rail only");
  s.iterations = cfg.iterations;
  s.t_freeze = cfg.hsadmm.t_freeze;
}

// The simulated platform's settings and the model's mechanisms (docs/simulation.md): network
// model, routing, algorithm, interference, skew, framework costs, achieved bandwidths,
// precision.
void apply_model(const SimulateConfig& cfg, Topology& topology, SimulateSpec& s) {
  s.sim.nodes = cfg.nodes;
  s.sim.gpus_per_node = cfg.gpus_per_node;
  s.sim.network_model = cfg.network_model;
  check_fabric_routing(topology, cfg.fabric_routing);
  s.sim.fabric_routing = cfg.fabric_routing;
  s.sim.ecmp_seed = static_cast<std::uint64_t>(cfg.ecmp_seed);
  s.sim.nccl_protocols = cfg.nccl_protocols;
  s.sim.call_latency = cfg.call_latency;
  s.sim.plan_algo = cfg.algo;
  s.sim.overlap_slowdown = cfg.interference;
  s.sim.sync_skew = cfg.sync_skew;
  s.plan.framework_passes = cfg.ddp_overhead_passes;
  s.plan.step_overhead_s = cfg.step_overhead_ms / 1000;
  s.plan.layer_compute = cfg.compute_cost == "layers";
  s.plan.activation_bytes = cfg.precision == Precision::amp ? 2 : 4;
  if (cfg.strategy == Strategy::ddp || cfg.strategy == Strategy::fp16)
    s.plan.cycle_wait_s = cfg.horovod_cycle_ms / 1000 / 2;
  topology = apply_link_what_if(topology, cfg.link_what_if());
  if (cfg.achieved_bandwidth) topology = achieved_bandwidths(topology);
  topology = apply_precision(topology, cfg.precision);
}

// --calibration FILE, read once (empty: none); refused beside a precision it was not measured
// at.
std::optional<Calibration> read_run_calibration(const SimulateConfig& cfg) {
  std::optional<Calibration> calibration;
  if (!cfg.calibration.empty()) calibration = read_calibration(cfg.calibration);
  PRUNEX_USAGE(cfg.precision == Precision::fp32 || !calibration || !calibration->compute,
               "--precision ", precision_name(cfg.precision), " and --calibration ",
               cfg.calibration,
               ": the calibration's compute speed is its live run's, at that run's precision "
               "(leave --precision out, or use a calibration without --steps)");
  return calibration;
}

// The calibration's numbers in place of the topology's; a fixed cost per step fitted with the
// speed (runs at several batch sizes) belongs to it.
void apply_run_calibration(const SimulateConfig& cfg, const Calibration& calibration,
                           SimulateSpec& s) {
  apply_calibration_file(calibration, cfg.calibration, s.topology, s.sim);
  const double fitted = calibrated_step_overhead_s(calibration, cfg.nodes * cfg.gpus_per_node);
  if (fitted > 0) {
    PRUNEX_USAGE(cfg.step_overhead_ms == 0, "--step-overhead-ms ", cfg.step_overhead_ms,
                 " and --calibration ", cfg.calibration, ", which fitted a fixed cost per step (",
                 fitted * 1e3, " ms with its compute speed): give one of them");
    s.plan.step_overhead_s = fitted;
  }
}

// Masks of a live run (--masks, replayed); cfg's sparsity becomes the run's.
void replay_masks(SimulateConfig& cfg, SimulateSpec& s) {
  const std::string where = "--masks " + cfg.masks;
  nlohmann::json run = read_json_file(cfg.masks, "--masks");
  PRUNEX_USAGE(json_member(run, "config").is_object(), where,
               ": not a metrics.json (no \"config\" object)");
  const nlohmann::json rcfg = canonical_config(run["config"]);
  const nlohmann::json& m = json_member(rcfg, "model");
  PRUNEX_USAGE(m.is_string() && m.get<std::string>() == cfg.model, where, ": recorded for model ",
               m.dump(), ", simulating '", cfg.model, "'");
  if (const nlohmann::json& sp = json_member(rcfg, "sparsity"); !sp.is_null()) {
    PRUNEX_USAGE(sp.is_string(), where, ": config.sparsity is not a string");
    cfg.hsadmm.sparsity = sp.get<std::string>();
  }
  cfg.union_growth = 0;  // not used: the recorded masks
  const SparsitySpec spec = SparsitySpec::build(s.layout, parse_sparsity_kinds(cfg.hsadmm.sparsity),
                                                KeepRate::of_fraction(cfg.hsadmm.keep));
  s.mask = mask_from_densities(s.layout, spec, last_densities(run, where), where);
  // H-SADMM replays the run's payload masks iteration by iteration (before the mask freezes
  // they are unions of node masks, larger than the final mask).
  if (cfg.strategy == Strategy::hsadmm) s.payload_masks = payload_masks(run, s.layout, spec, where);
}

// The synthetic union model's mask for this node count (hsadmm-flat has no union: its global
// mask is one projection, M = 1).
void synthetic_masks(const SimulateConfig& cfg, SimulateSpec& s) {
  const SparsitySpec spec = SparsitySpec::build(s.layout, parse_sparsity_kinds(cfg.hsadmm.sparsity),
                                                KeepRate::of_fraction(cfg.hsadmm.keep));
  const int union_of = cfg.strategy == Strategy::hsadmm ? cfg.nodes : 1;
  s.mask = synthetic_union_mask(s.layout, spec, cfg.union_growth, union_of);
}

// A tree has no all-gather (NCCL has none): a strategy that all-gathers is refused here,
// before any simulation, not inside its first iteration (or a sweep's later point).
void refuse_tree_allgather(const SimulateConfig& cfg, const SimulateSpec& s) {
  if (s.sim.plan_algo != Algo::tree) return;
  for (const PlanStep& step : build_plan(spec_plan_inputs(s)).steps)
    PRUNEX_USAGE(step.kind != StepKind::collective || algo_runs(Algo::tree, step.op),
                 "--algo tree: ", strategy_name(cfg.strategy), " all-gathers (its ",
                 phase_name(step.phase),
                 " phase) and a tree has no all-gather; use --algo ring, hierarchical or nccl");
}

// The record: every field (the shape as used), then what the run was.
nlohmann::json spec_record(const SimulateConfig& cfg, const SimulateSpec& s) {
  nlohmann::json config = config_json(simulate_fields(), cfg);
  if (!cfg.masks.empty()) config["union-growth"] = nullptr;
  const Topology& t = s.topology;
  config["compute-model"] =
      cfg.compute_cost == "layers"
          ? "3 x the convolutions' and linear layers' forward FLOPs per sample at the effective "
            "FLOP/s, and the batch norms' and ReLUs' passes over their outputs at memory "
            "bandwidth, x the GPU's shard per epoch"
          : "3 x forward FLOPs per sample x the GPU's shard per epoch, at the effective FLOP/s";
  config["parameters"] = s.layout.parameters();
  config["forward-gflops-per-sample"] = s.layout.forward_flops() / 1e9;
  config["compute-calibration"] = {{"gpu", t.gpu.name},
                                   {"effective_flops", t.gpu.effective_flops()},
                                   {"efficiency", t.gpu.efficiency},
                                   {"source", t.source_of("gpu.efficiency")},
                                   {"step_overhead_s", s.plan.step_overhead_s},
                                   {"memory_bandwidth_Bps", t.gpu.mem_bandwidth_Bps},
                                   {"memory_phases_Bps", s.sim.memory_Bps}};
  config["links"] = {{"intra",
                      {{"latency_s", t.intra.link.latency_s},
                       {"bandwidth_Bps", t.intra.link.bandwidth_Bps},
                       {"source", t.source_of("intra.bandwidth_gbs")}}},
                     {"nic",
                      {{"latency_s", t.nic.link.latency_s},
                       {"bandwidth_Bps", t.nic.link.bandwidth_Bps},
                       {"rails", t.nic.rails},
                       {"source", t.source_of("nic.bandwidth_gbits")}}}};
  return config;
}

}  // namespace

SimulateSpec make_spec(const SimulateConfig& cfg_in, bool records) {
  SimulateConfig cfg = cfg_in;
  SimulateSpec s;
  Topology topology = load_platform(cfg, records, s);
  plan_settings(cfg, s);
  apply_model(cfg, topology, s);
  const std::optional<Calibration> calibration = read_run_calibration(cfg);
  apply_what_if(cfg, topology, s.sim);
  s.failures = {cfg.mtbf_hours * 3600, cfg.checkpoint_minutes * 60, cfg.checkpoint_seconds,
                cfg.restart_seconds};
  s.topology = std::move(topology);
  if (calibration) apply_run_calibration(cfg, *calibration, s);
  s.band_key.measured_speed = calibration && calibration->compute;
  s.band_key.multi_node = s.sim.nodes > 1;
  s.band_key.reduced_precision = cfg.precision != Precision::fp32;
  cfg.algo = s.sim.plan_algo;  // recorded as run
  if (!cfg.masks.empty())
    replay_masks(cfg, s);
  else
    synthetic_masks(cfg, s);
  refuse_tree_allgather(cfg, s);
  s.config = spec_record(cfg, s);
  return s;
}

}  // namespace prunex::sim

namespace prunex::sim {

std::string shaped_dataset_of(const SimulateConfig& c) {
  for (const std::string& name : shaped_dataset_names()) {
    const DatasetSpec d = dataset_shape(name);
    if (c.input == d.image_size && c.input_channels == d.channels && c.classes == d.classes &&
        c.samples == d.train_samples)
      return name;
  }
  return "";
}

}  // namespace prunex::sim
