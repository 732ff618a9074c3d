// `prunex calibrate`: fits a topology's tier latencies and bandwidths to live `prunex bench`
// rows, a rank's compute throughput to measured local steps (a live run's metrics.json) and
// its memory bandwidth to the compaction bench's memcpy row, and writes calibration.json for
// `simulate`, `sweep` and `bench --backend sim` (--calibration). The model is in
// backends/simgrid/calibration.h.
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "analysis/metrics.h"
#include "apps/cli.h"
#include "apps/simulate_options.h"
#include "backends/simgrid/calibration.h"
#include "engine/error.h"
#include "engine/mask_model.h"
#include "engine/phases.h"
#include "engine/plan_builder.h"
#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "topologies/topology_io.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {
namespace {

// The plan inputs of a live run from its recorded config (model, shape, batch, samples,
// local steps; engine/plan_builder.h). `layout` must outlive the result.
PlanInputs plan_inputs_of(const nlohmann::json& cfg, const std::string& where,
                          ModelLayout& layout) {
  auto num = [&](const char* key) {
    PRUNEX_USAGE(cfg.contains(key) && cfg[key].is_number(), where, ": config.", key,
                 " missing (a `prunex train` metrics.json is needed)");
    return cfg[key].get<double>();
  };
  const std::string dataset = cfg.value("dataset", std::string());
  const int input = cfg.contains("input") ? static_cast<int>(num("input"))
                                          : (dataset == "fashion-mnist" ? 28 : 32);
  const int channels = cfg.contains("input_channels") ? static_cast<int>(num("input_channels"))
                                                      : (dataset == "fashion-mnist" ? 1 : 3);
  layout = make_layout(cfg.value("model", std::string()), static_cast<int>(num("classes")), input,
                       channels);
  PlanInputs in;
  in.layout = &layout;
  in.nodes = static_cast<int>(num("nodes"));
  in.gpus_per_node = static_cast<int>(num("gpus_per_node"));
  in.batch = static_cast<int>(num("batch"));
  PRUNEX_USAGE(cfg.contains("samples"), where,
               ": config.samples missing (rerun with this version of prunex train)");
  in.samples = static_cast<long>(num("samples"));
  in.local_epochs = static_cast<int>(num("local-epochs"));
  in.local_steps = static_cast<long>(num("local-steps"));
  return in;
}

// A live run given with --steps, read once: its records and the simulator's plan inputs for
// its work (hsadmm: with the run's last global mask, as simulate --masks uses it).
struct StepsRun {
  std::string path;
  nlohmann::json metrics;
  ModelLayout layout;
  RecordedMasks masks;  // hsadmm: each iteration's payload mask
  PlanInputs in;        // points into layout and masks
};

void load_steps_run(const std::string& path, StepsRun& r) {
  const std::string where = "--steps " + path;
  r.path = path;
  r.metrics = read_json_file(path, "--steps");
  PRUNEX_USAGE(
      r.metrics.is_object() && r.metrics.contains("config") && r.metrics.contains("iterations"),
      where, ": not a metrics.json");
  const auto& cfg = r.metrics["config"];
  PRUNEX_USAGE(cfg.value("executor", std::string()) != "simgrid", where,
               ": a simulated run; calibrate from live runs");
  r.in = plan_inputs_of(cfg, where, r.layout);
  r.in.strategy = parse_strategy(cfg.value("strategy", std::string()));
  r.in.bucket_bytes = static_cast<int64_t>(cfg.value("bucket-mib", 32.0) * (1 << 20));
  r.in.topk_ratio = cfg.value("topk-ratio", 0.01);
  if (r.in.strategy == Strategy::hsadmm) {
    const SparsitySpec spec = SparsitySpec::build(
        r.layout, parse_sparsity_kinds(cfg.value("sparsity", std::string("channel"))),
        KeepRate::of_fraction(cfg.value("keep", 0.5)));
    r.masks = payload_masks(r.metrics, r.layout, spec, where);
    r.in.global_mask = &r.masks.of(1);
  }
}

// The --steps runs, read and checked once (one world size: the fits scale by ranks per host).
std::vector<std::unique_ptr<StepsRun>> load_steps_runs(const std::vector<std::string>& files) {
  std::vector<std::unique_ptr<StepsRun>> runs;
  for (const auto& path : files) {
    runs.push_back(std::make_unique<StepsRun>());
    load_steps_run(path, *runs.back());
    const int w = runs.back()->metrics["config"].value("world_size", 0);
    const int first = runs.front()->metrics["config"].value("world_size", 0);
    PRUNEX_USAGE(w == first, "--steps: ", path, " ran on ", w, " ranks, an earlier file on ", first,
                 "; calibrate each world size separately");
  }
  return runs;
}

// "N live run(s) (first.json, ...), I iterations, slowest rank, R ranks"
std::string runs_source(const std::vector<std::unique_ptr<StepsRun>>& runs, int iterations,
                        int ranks) {
  return std::to_string(runs.size()) + " live run(s) (" + runs.front()->path +
         (runs.size() > 1 ? ", ..." : "") + "), " + std::to_string(iterations) +
         " iterations, slowest rank, " + std::to_string(ranks) + " ranks";
}

// Iterations a fit uses: all but the first (start-up) when there are more.
size_t first_fitted(const nlohmann::json& its) {
  return its.size() > 1 ? 1 : 0;
}

// Memory bytes of one outer iteration by phase and speed key (a step's memory_key, else its
// phase), from the plan (local_compute left out: its time is the compute fit's).
std::map<std::string, std::map<std::string, double>> memory_bytes(const PlanInputs& in) {
  const IterationPlan plan = build_plan(in);
  const double repeats = static_cast<double>(plan_repeats(in));
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& s : plan.steps)
    if (s.kind == StepKind::memory && s.phase != phase::local_compute)
      out[s.phase][s.memory_key.empty() ? s.phase : s.memory_key] += s.mem_bytes * repeats;
  return out;
}

// Effective FLOP/s of one rank from the slowest rank's local_compute, against the FLOPs one
// rank computes per outer iteration (the simulator's compute model: 3 x forward FLOPs per
// sample, engine/plan_builder.h).
sim::ComputeFit fit_compute(const std::vector<std::unique_ptr<StepsRun>>& runs) {
  sim::ComputeFit f;
  double flops = 0, seconds = 0;
  for (const auto& r : runs) {
    const double per_iteration =
        step_flops(r->in) * static_cast<double>(steps_per_iteration(r->in));
    const auto& its = r->metrics["iterations"];
    for (size_t k = first_fitted(its); k < its.size(); ++k) {
      const auto& ph = its[k].value("phases", nlohmann::json::object());
      PRUNEX_USAGE(ph.contains("local_compute"), "--steps ", r->path, ": iteration ", k + 1,
                   " has no local_compute phase");
      seconds += ph["local_compute"].value("critical_path_s", 0.0);
      flops += per_iteration;
      ++f.iterations;
    }
  }
  PRUNEX_USAGE(seconds > 0 && f.iterations > 0, "--steps: no local_compute time recorded");
  f.flops_per_rank = flops / seconds;
  f.ranks = runs.front()->metrics["config"].value("world_size", 0);
  f.source = "local steps of " + runs_source(runs, f.iterations, f.ranks);
  return f;
}

// Per memory phase, the plan's bytes over the slowest rank's seconds in the runs' iterations
// (the median of the iterations' speeds, sim::fit_memory_speeds):
// the engine's own kernels (consensus updates, projection, pack / unpack, Top-K selection) at
// the speed they ran, per-call overheads included. hsadmm iteration k's plan follows the live
// freezer and compacts with that iteration's payload mask, as simulate --masks does.
std::map<std::string, sim::MemoryFit> fit_memory_phases(
    const std::vector<std::unique_ptr<StepsRun>>& runs) {
  std::map<std::string, std::vector<sim::MemorySample>> samples;  // by phase
  for (const auto& r : runs) {
    const int ranks = r->metrics["config"].value("world_size", 1);
    const auto& its = r->metrics["iterations"];
    auto frozen_after = [&](long k) { return k >= 0 && its[k].value("mask_frozen", false); };
    for (size_t k = first_fitted(its); k < its.size(); ++k) {
      const long i = static_cast<long>(k);
      set_freeze_state(r->in, frozen_after(i - 2), frozen_after(i - 1), frozen_after(i));
      if (!r->masks.empty()) r->in.global_mask = &r->masks.of(static_cast<int>(k) + 1);
      const auto& ph = its[k].value("phases", nlohmann::json::object());
      for (const auto& [phase, bytes] : memory_bytes(r->in))
        if (ph.contains(phase))
          samples[phase].push_back({bytes, ph[phase].value("critical_path_s", 0.0), ranks});
    }
  }
  std::map<std::string, sim::MemoryFit> fits;
  for (const auto& [phase, ss] : samples)
    for (auto& [key, f] : sim::fit_memory_speeds(ss)) {
      f.source = (key == phase ? "phase " + phase : key + " in phase " + phase) + " of " +
                 runs_source(runs, f.iterations, f.ranks);
      fits[key] = f;
    }
  return fits;
}

sim::MemoryFit fit_memory(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "--memory");
  PRUNEX_USAGE(j.is_object() && j.contains("rows") && j["rows"].is_array(), "--memory ", path,
               ": not a `prunex bench --op compaction --json` file");
  for (const auto& r : j["rows"])
    if (r.value("op", std::string()) == "memcpy") {
      const double bytes = r.value("bytes", 0.0), us = r.value("time_us", 0.0);
      PRUNEX_USAGE(bytes > 0 && us > 0, "--memory ", path, ": memcpy row without size or time");
      return {bytes / (us * 1e-6), 1,
              "memcpy row of " + path + " (bytes read + written per second, one process)"};
    }
  PRUNEX_USAGE(false, "--memory ", path, ": no memcpy row");
  return {};
}

// "3.000 GB/s", or the latency-only fit's unbounded bandwidth.
std::string bandwidth_text(double Bps) {
  if (Bps >= 1e29) return "unbounded (latency only)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GB/s", Bps / 1e9);
  return buf;
}

std::vector<std::string> file_list(const Args& args, const std::string& name) {
  std::vector<std::string> out;
  if (auto v = args.get(name))
    for (auto& s : split_list(*v)) out.push_back(s);
  return out;
}

int run_calibrate(const Args& args) {
  std::vector<std::string> bench = file_list(args, "from");
  for (const auto& p : args.positional()) bench.push_back(p);
  const std::vector<std::string> warm = file_list(args, "from-warm");
  PRUNEX_USAGE(warm.empty() || !bench.empty(), "--from-warm needs --from (the cold benches)");
  const std::vector<std::string> steps = file_list(args, "steps");
  const auto memory = args.get("memory");
  PRUNEX_USAGE(!bench.empty() || !steps.empty() || memory,
               "nothing to calibrate from: give --from BENCH_JSON, --steps METRICS_JSON or "
               "--memory COMPACTION_JSON");
  const auto out = args.get("out");
  PRUNEX_USAGE(out.has_value(), "--out FILE is required");
  sim::FitOptions opt;
  opt.ops = args.has("ops") ? split_list(*args.get("ops")) : std::vector<std::string>{};
  for (const auto& op : opt.ops) sim::parse_op(op);
  opt.min_bytes = static_cast<double>(args.get_size("min-bytes", 0));
  opt.max_bytes =
      args.has("max-bytes") ? static_cast<double>(args.get_size("max-bytes", 0)) : 1e300;
  PRUNEX_USAGE(opt.max_bytes >= opt.min_bytes, "--max-bytes is below --min-bytes");
  opt.mode = sim::parse_fit_mode(args.get_or("fit", "piecewise"), "--fit");
  const long cores =
      args.get_int("host-cores", static_cast<long>(std::thread::hardware_concurrency()));
  PRUNEX_USAGE(cores >= 0, "--host-cores must be >= 0 (got ", cores, ")");

  sim::Calibration cal;
  const Topology base = load_topology(args.get_or("topology", "localhost"));
  cal.topology = base.name;
  cal.host_cores = static_cast<int>(cores);
  auto read_points = [](const std::vector<std::string>& files) {
    std::vector<sim::BenchPoint> pts;
    for (const auto& f : files) {
      auto p = sim::read_bench_points(f);
      pts.insert(pts.end(), p.begin(), p.end());
    }
    return pts;
  };
  std::vector<sim::FittedPoint> fitted;
  if (!bench.empty()) {
    sim::fit_bench(base, read_points(bench), opt, cal, fitted);
    PRUNEX_USAGE(!cal.tiers.empty() || !cal.ops.empty(), "no rows within the chosen ops and sizes");
  }
  std::vector<sim::FittedPoint> fitted_warm;
  if (!warm.empty()) {
    sim::Calibration w;
    sim::fit_bench(base, read_points(warm), opt, w, fitted_warm);
    PRUNEX_USAGE(!w.ops.empty(), "--from-warm: no rows within the chosen ops and sizes");
    cal.ops_warm = w.ops;
  }
  if (!steps.empty()) {
    const auto runs = load_steps_runs(steps);
    cal.compute = fit_compute(runs);
    cal.memory_phases = fit_memory_phases(runs);
  }
  if (memory) cal.memory = fit_memory(*memory);
  cal.inputs = bench;
  cal.inputs.insert(cal.inputs.end(), warm.begin(), warm.end());
  cal.inputs.insert(cal.inputs.end(), steps.begin(), steps.end());
  if (memory) cal.inputs.push_back(*memory);

  for (const auto* points : {&fitted, &fitted_warm}) {
    if (points->empty()) continue;
    std::printf("# prunex calibrate: ring closed form per tier, fitted on topology %s%s\n",
                base.name.c_str(), points == &fitted_warm ? " (--from-warm)" : "");
    std::printf("#%9s %6s %6s %12s %13s %13s %9s %s\n", "op", "group", "ranks", "bytes",
                "measured(us)", "model(us)", "error", "");
    for (const auto& fp : *points)
      std::printf(" %9s %6s %6d %12.0f %13.2f %13.2f %+8.1f%% %s\n", fp.point.op.c_str(),
                  fp.point.group.c_str(), fp.point.ranks, fp.point.bytes, fp.point.seconds * 1e6,
                  fp.predicted_s * 1e6, 100 * fp.rel_err(), fp.fitted ? "fit" : "check");
  }
  for (const auto& [tier, f] : cal.tiers)
    std::printf(
        "%s: latency %.3f us, bandwidth %s (%d points, %.0f-%.0f B; error: "
        "geometric mean %.1f%%, max %.1f%%)\n",
        tier.c_str(), f.latency_s * 1e6, bandwidth_text(f.bandwidth_Bps).c_str(), f.points,
        f.min_bytes, f.max_bytes, 100 * f.geomean_rel_err, 100 * f.max_abs_rel_err);
  for (const auto* ops : {&cal.ops, &cal.ops_warm})
    for (const auto& [key, segments] : *ops)
      for (const auto& f : segments)
        std::printf(
            "  %-16s %9.0f-%9.0f B: latency %9.3f us, bandwidth %s (%d points; "
            "error: geometric mean %.1f%%, max %.1f%%)\n",
            (key + (ops == &cal.ops_warm ? " warm" : "")).c_str(), f.min_bytes, f.max_bytes,
            f.latency_s * 1e6, bandwidth_text(f.bandwidth_Bps).c_str(), f.points,
            100 * f.geomean_rel_err, 100 * f.max_abs_rel_err);
  if (cal.compute)
    std::printf("compute: %.3f GFLOP/s per rank with %d ranks on the host (%s)\n",
                cal.compute->flops_per_rank / 1e9, cal.compute->ranks, cal.compute->source.c_str());
  if (cal.memory)
    std::printf("memory: %.3f GB/s per rank (%s)\n", cal.memory->bandwidth_Bps / 1e9,
                cal.memory->source.c_str());
  for (const auto& [phase, f] : cal.memory_phases)
    std::printf("memory %-15s %.3f GB/s per rank (%.0f B in %.3f ms over %d iterations)\n",
                phase.c_str(), f.bandwidth_Bps / 1e9, f.bytes, f.seconds * 1e3, f.iterations);
  if (cal.host_cores > 0)
    std::printf(
        "shared host: %d cores; a rank's compute and memory speed scale by min(1, %d / "
        "ranks)\n",
        cal.host_cores, cal.host_cores);
  write_file_atomic(*out, sim::calibration_json(cal, fitted).dump(2) + "\n");
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "calibrate",
    "fit a topology's latencies, bandwidths and compute speed to live measurements",
    "prunex calibrate --from BENCH_JSON[,...] [--steps METRICS_JSON[,...]] [--memory "
    "COMPACTION_JSON] --out calibration.json",
    "Fits the intra- and inter-node latency and bandwidth of a topology (default: localhost)\n"
    "to `prunex bench --backend mpi --json` rows: each row's time is the simulator's ring\n"
    "closed form, linear in the tier's latency and inverse bandwidth, fitted by least relative\n"
    "squares (intra rows fit intra, inter rows fit inter). Every op on every group (world\n"
    "included) also gets its own cost, which simulations use: --fit piecewise (default) fits\n"
    "the closed form between each two consecutive benchmarked sizes, so the simulator\n"
    "interpolates the measured curve (SMPI's piecewise factors do the same); --fit line fits\n"
    "one line per op, split at one size where that halves its error (MPI switches algorithms\n"
    "by size). The table prints every point with the calibrated prediction and its error.\n"
    "Bench with --sync --busy-us to time collectives as training meets them (after compute),\n"
    "not back to back.\n"
    "--from-warm takes benches of collectives timed back to back (bench --sync, no\n"
    "--busy-us): their per-op fits cost the collectives with no compute since the previous\n"
    "collective (H-SADMM's mask sync, inter-node all-reduce and broadcasts), which on a CPU\n"
    "host run faster than those right after a training step.\n"
    "--steps takes live `prunex train` metrics.json files: a rank's effective FLOP/s is 3 x\n"
    "forward FLOPs per sample over the slowest rank's local_compute (first iteration skipped);\n"
    "their memory phases (dual_update, projection, pack, unpack, compress) give each phase's\n"
    "speed: the bytes the simulator's plan counts for it over the slowest rank's seconds,\n"
    "the median over iterations (pack's compaction plan build gets its own, from the time\n"
    "iterations that build spend beyond the pack).\n"
    "--memory takes `prunex bench --op compaction --json`: the memcpy row's bytes per second.\n"
    "Ranks on one host share its cores (--host-cores, default this machine's): simulating R\n"
    "ranks scales the measured speeds by min(1, cores / R) / min(1, cores / measured ranks).\n"
    "simulate, sweep and bench --backend sim apply the file with --calibration FILE.\n\n"
    "examples:\n"
    "  mpirun -np 4 prunex bench --backend mpi --gpus-per-node 2 --op all -b 1K -e 1M "
    "--sync --busy-us 50000 --json b.json\n"
    "  prunex calibrate --from b.json --steps out/short/metrics.json --out calibration.json\n"
    "  prunex simulate --topology localhost --calibration calibration.json --nodes 2 "
    "--gpus-per-node 2 --model small_cnn ...",
    {
        {"from", "FILES", "bench JSON files (comma-separated; more may follow as arguments)", ""},
        {"from-warm", "FILES",
         "bench JSON files timed back to back, for collectives after communication", ""},
        {"steps", "FILES", "metrics.json of live train runs (comma-separated)", ""},
        {"memory", "FILE", "compaction bench JSON (its memcpy row)", ""},
        {"topology", "NAME|FILE", "topology whose tiers are fitted", "localhost"},
        {"ops", "LIST", "ops to fit (allreduce, broadcast, allgather)", "all"},
        {"fit", "piecewise|line",
         "per-op cost: a line between each two benchmarked sizes, or one alpha-beta line "
         "(split once)",
         "piecewise"},
        {"min-bytes", "S", "fit only rows of at least this size (K/M/G suffixes)", "0"},
        {"max-bytes", "S", "fit only rows of at most this size", "no limit"},
        {"host-cores", "N", "cores the ranks share (0: no sharing model)", "this machine's"},
        {"out", "FILE", "calibration JSON to write (required)", ""},
    },
    run_calibrate});

}  // namespace
}  // namespace prunex::cli
