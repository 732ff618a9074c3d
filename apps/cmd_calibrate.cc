// `prunex calibrate`: fits a topology's tier latencies and bandwidths to live `prunex bench`
// rows, a rank's compute throughput to measured local steps (a live run's metrics.json) and
// its memory bandwidth to the compaction bench's memcpy row, and writes calibration.json for
// `simulate`, `sweep` and `bench --backend sim` (--calibration). The model is in
// calibration/calibration.h.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/platform_options.h"
#include "calibration/calibration.h"
#include "calibration/calibration_runs.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "engine/plan_builder.h"
#include "engine/simulated_masks.h"
#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "settings/config_fields.h"
#include "simulate/simulate_config.h"
#include "topologies/topology_io.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {
namespace {

// The platform options calibrate takes (--algo): it fits the ring's closed form unless told
// mpi, not the simulating commands' default (NCCL's pick, which has no closed form to invert).
sim::PlatformSettings fit_defaults() {
  sim::PlatformSettings p;
  p.algo = sim::Algo::ring;
  return p;
}

// "3.000 GB/s", or the latency-only fit's unbounded bandwidth.
std::string bandwidth_text(double Bps) {
  if (Bps >= 1e29) return "unbounded (latency only)";
  return fmt::format("{:.3f} GB/s", Bps / 1e9);
}

std::vector<std::string> file_list(const Args& args, const std::string& name) {
  std::vector<std::string> out;
  if (auto v = args.get(name))
    for (auto& s : split_list(*v)) out.push_back(s);
  return out;
}

// The measurements a calibration is fitted on, by kind.
struct CalibrationInputs {
  std::vector<std::string> bench, warm, steps;
  std::optional<std::string> memory;
};

CalibrationInputs calibration_inputs(const Args& args) {
  CalibrationInputs in;
  in.bench = file_list(args, "from");
  for (const auto& p : args.positional()) in.bench.push_back(p);
  in.warm = file_list(args, "from-warm");
  PRUNEX_USAGE(in.warm.empty() || !in.bench.empty(), "--from-warm needs --from (the cold benches)");
  in.steps = file_list(args, "steps");
  in.memory = args.get("memory");
  PRUNEX_USAGE(!in.bench.empty() || !in.steps.empty() || in.memory,
               "nothing to calibrate from: give --from BENCH_JSON, --steps METRICS_JSON or "
               "--memory COMPACTION_JSON");
  return in;
}

sim::FitOptions fit_options(const Args& args) {
  sim::FitOptions opt;
  if (args.has("ops"))
    for (const auto& op : split_list(*args.get("ops"))) opt.ops.push_back(sim::parse_op(op));
  opt.min_bytes = static_cast<double>(args.get_size("min-bytes", 0));
  opt.max_bytes =
      args.has("max-bytes") ? static_cast<double>(args.get_size("max-bytes", 0)) : 1e300;
  PRUNEX_USAGE(opt.max_bytes >= opt.min_bytes, "--max-bytes is below --min-bytes");
  opt.mode = sim::parse_fit_mode(args.get_or("fit", "piecewise"), "--fit");
  sim::PlatformSettings platform = fit_defaults();
  read_platform(args, platform);
  opt.algo = platform.algo;
  PRUNEX_USAGE(opt.algo == sim::Algo::ring || opt.algo == sim::Algo::mpi,
               "--algo must be ring or mpi, got '", sim::algo_name(opt.algo), "'");
  return opt;
}

// The calibration's frame: the topology the runs had, the host's cores, absolute or relative
// links.
sim::Calibration calibration_base(const Args& args, const Topology& base) {
  const long cores =
      args.get_int("host-cores", static_cast<long>(std::thread::hardware_concurrency()));
  sim::Calibration cal;
  cal.topology = base.name;
  cal.host_cores = static_cast<int>(cores);
  const std::string links = args.get_or("links", "absolute");
  PRUNEX_USAGE(links == "absolute" || links == "relative",
               "--links must be absolute or relative, got '", links, "'");
  cal.links_relative = links == "relative";
  // Relative to localhost's placeholder links means nothing: the links the runs had are named.
  PRUNEX_USAGE(!cal.links_relative || args.has("topology"),
               "--links relative needs --topology: the topology the benches ran on, whose links "
               "the fit is relative to");
  cal.inter_base_Bps = sim::node_inter_Bps(base);
  cal.inter_base_latency_s = sim::node_inter_latency_s(base);
  return cal;
}

std::vector<sim::BenchPoint> read_points(const std::vector<std::string>& files) {
  std::vector<sim::BenchPoint> pts;
  for (const auto& f : files) {
    auto p = sim::read_bench_points(f);
    pts.insert(pts.end(), p.begin(), p.end());
  }
  return pts;
}

// Fits every kind of input into cal; the benches' points (cold, warm) for the report.
void fit_inputs(const CalibrationInputs& in, const Topology& base, const sim::FitOptions& opt,
                sim::Calibration& cal, std::vector<sim::FittedPoint>& fitted,
                std::vector<sim::FittedPoint>& fitted_warm) {
  if (!in.bench.empty()) {
    sim::fit_bench(base, read_points(in.bench), opt, cal, fitted);
    PRUNEX_USAGE(!cal.tiers.empty() || !cal.ops.empty(), "no rows within the chosen ops and sizes");
    PRUNEX_USAGE(!cal.links_relative || cal.tiers.count("inter"),
                 "--links relative needs inter-node bench rows (a bench on 2 or more nodes)");
  }
  if (!in.warm.empty()) {
    sim::Calibration w;
    sim::fit_bench(base, read_points(in.warm), opt, w, fitted_warm);
    PRUNEX_USAGE(!w.ops.empty(), "--from-warm: no rows within the chosen ops and sizes");
    cal.ops_warm = w.ops;
  }
  if (!in.steps.empty()) {
    const auto runs = sim::load_steps_runs(in.steps);
    cal.compute = sim::fit_compute(runs);
    cal.memory_phases = sim::fit_memory_phases(runs);
  }
  if (in.memory) cal.memory = sim::fit_memory(*in.memory);
  cal.inputs = in.bench;
  cal.inputs.insert(cal.inputs.end(), in.warm.begin(), in.warm.end());
  cal.inputs.insert(cal.inputs.end(), in.steps.begin(), in.steps.end());
  if (in.memory) cal.inputs.push_back(*in.memory);
}

// Each bench row against the fit.
void print_fitted_points(const std::vector<sim::FittedPoint>& fitted,
                         const std::vector<sim::FittedPoint>& fitted_warm,
                         const sim::FitOptions& opt, const Topology& base) {
  for (const auto* points : {&fitted, &fitted_warm}) {
    if (points->empty()) continue;
    fmt::print(
        "# prunex calibrate: ring closed form per tier, {} per op, fitted on topology {}{}\n",
        opt.algo == sim::Algo::mpi ? "Open MPI's algorithms" : "ring closed form", base.name,
        points == &fitted_warm ? " (--from-warm)" : "");
    fmt::print("#{:>9} {:>6} {:>6} {:>12} {:>13} {:>13} {:>9} {}\n", "op", "group", "ranks",
               "bytes", "measured(us)", "model(us)", "error", "");
    for (const auto& fp : *points)
      fmt::print(" {:>9} {:>6} {:6} {:12.0f} {:13.2f} {:13.2f} {:+8.1f}% {}\n",
                 collective_op_name(fp.point.op), group_name(fp.point.group), fp.point.ranks,
                 fp.point.bytes, fp.point.seconds * 1e6, fp.predicted_s * 1e6, 100 * fp.rel_err(),
                 fp.fitted ? "fit" : "check");
  }
}

// What the calibration holds: tiers, per-op segments, compute, memory, the shared host.
void print_calibration(const sim::Calibration& cal) {
  for (const auto& [tier, f] : cal.tiers)
    fmt::print(
        "{}: latency {:.3f} us, bandwidth {} ({} points, {:.0f}-{:.0f} B; error: "
        "geometric mean {:.1f}%, max {:.1f}%)\n",
        tier, f.latency_s * 1e6, bandwidth_text(f.bandwidth_Bps), f.points, f.min_bytes,
        f.max_bytes, 100 * f.geomean_rel_err, 100 * f.max_abs_rel_err);
  for (const auto* ops : {&cal.ops, &cal.ops_warm})
    for (const auto& [key, segments] : *ops)
      for (const auto& f : segments)
        fmt::print(
            "  {:<16} {:9.0f}-{:9.0f} B: latency {:9.3f} us, bandwidth {} ({} points; "
            "error: geometric mean {:.1f}%, max {:.1f}%)\n",
            (key + (ops == &cal.ops_warm ? " warm" : "")), f.min_bytes, f.max_bytes,
            f.latency_s * 1e6, bandwidth_text(f.bandwidth_Bps), f.points, 100 * f.geomean_rel_err,
            100 * f.max_abs_rel_err);
  if (cal.compute)
    fmt::print("compute: {:.3f} GFLOP/s per rank{} with {} ranks on the host ({})\n",
               cal.compute->flops_per_rank / 1e9,
               cal.compute->step_overhead_s > 0 ? fmt::format(" and {:.3f} ms per local step",
                                                              cal.compute->step_overhead_s * 1e3)
                                                : std::string(),
               cal.compute->ranks, cal.compute->source);
  if (cal.memory)
    fmt::print("memory: {:.3f} GB/s per rank ({})\n", cal.memory->bandwidth_Bps / 1e9,
               cal.memory->source);
  for (const auto& [phase, f] : cal.memory_phases)
    fmt::print("memory {:<15} {:.3f} GB/s per rank ({:.0f} B in {:.3f} ms over {} iterations)\n",
               phase, f.bandwidth_Bps / 1e9, f.bytes, f.seconds * 1e3, f.iterations);
  if (cal.host_cores > 0)
    fmt::print(
        "shared host: {} cores; a rank's compute and memory speed scale by min(1, {} / "
        "ranks)\n",
        cal.host_cores, cal.host_cores);
}

int run_calibrate(const Args& args) {
  const CalibrationInputs in = calibration_inputs(args);
  const auto out = args.get("out");
  PRUNEX_USAGE(out.has_value(), "--out FILE is required");
  const OutputFile out_file(*out);
  const sim::FitOptions opt = fit_options(args);
  const Topology base = load_topology(args.get_or("topology", "localhost"));
  sim::Calibration cal = calibration_base(args, base);
  std::vector<sim::FittedPoint> fitted, fitted_warm;
  fit_inputs(in, base, opt, cal, fitted, fitted_warm);
  print_fitted_points(fitted, fitted_warm, opt, base);
  print_calibration(cal);
  write_file_atomic(*out, sim::calibration_json(cal, fitted).dump(2) + "\n");
  fmt::print("wrote {}\n", out->c_str());
  return 0;
}

std::vector<Option> calibrate_options() {
  std::vector<Option> opts = {
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
      size_option("min-bytes", "S", "fit only rows of at least this size (K/M/G suffixes)", "0"),
      size_option("max-bytes", "S", "fit only rows of at most this size", "no limit"),
      integer_option("host-cores", "N", "cores the ranks share (0: no sharing model)",
                     "this machine's", 0, 1 << 20),
      {"links", "absolute|relative",
       "relative: keep the inter tier relative to --topology's links (emulated clusters)",
       "absolute"},
      {"out", "FILE", "calibration JSON to write (required)", ""},
  };
  // --algo, as every command that simulates declares it; calibrate fits ring or mpi.
  const auto algo = platform_options(
      fit_defaults(), {"algo"},
      {{"algo",
        "calibrate fits ring (the ring's closed form) or mpi (the collectives Open MPI "
        "runs itself); simulations with the file then run them"}});
  opts.insert(opts.begin() + 7, algo.begin(), algo.end());
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "calibrate", "fit a topology's latencies, bandwidths and compute speed to live measurements",
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
    "runs at batch sizes at least 1.5x apart fit a fixed cost per local step beside that rate\n"
    "(local_compute = steps x cost + FLOPs / rate), which simulations then charge every step,\n"
    "so strong scaling's smaller batches keep it; one batch size fits the rate alone;\n"
    "their memory phases (dual_update, projection, pack, unpack, compress) give each phase's\n"
    "speed: the bytes the simulator's plan counts for it over the slowest rank's seconds,\n"
    "the median over iterations (pack's compaction plan build gets its own, from the time\n"
    "iterations that build spend beyond the pack).\n"
    "--memory takes `prunex bench --op compaction --json`: the memcpy row's bytes per second.\n"
    "Ranks on one host share its cores (--host-cores, default this machine's): simulating R\n"
    "ranks scales the measured speeds by min(1, cores / R) / min(1, cores / measured ranks).\n"
    "--links relative (with --topology, the links the benches ran on: `prunex emulate\n"
    "--topology-out`) keeps the inter-node fit relative to those links: simulating a\n"
    "topology with other links scales the fitted bandwidth by their ratio (node to node, all\n"
    "rails) and shifts the latency by their difference, so one calibration on an emulated\n"
    "cluster predicts it at other link speeds; absolute (default) puts the fitted numbers in\n"
    "place of the links.\n"
    "--algo mpi fits each op as the collectives Open MPI 4.1 runs itself (its algorithm per\n"
    "rank count and size: recursive doubling, Rabenseifner, ring, trees; one latency term per\n"
    "step, two more for a rendezvous above the eager limit, one for the ranks' arrival), and\n"
    "simulations with the file then run those algorithms: what extrapolates a calibration on\n"
    "2 ranks to live MPI runs on more (docs/calibration.md).\n"
    "simulate, sweep and bench --backend sim apply the file with --calibration FILE.\n\n"
    "examples:\n"
    "  mpirun -np 4 prunex bench --backend mpi --gpus-per-node 2 --op all -b 1K -e 1M "
    "--sync --busy-us 50000 --json b.json\n"
    "  prunex calibrate --from b.json --steps out/short/metrics.json --out calibration.json\n"
    "  prunex simulate --topology localhost --calibration calibration.json --nodes 2 "
    "--gpus-per-node 2 --model small_cnn ...",
    calibrate_options(), run_calibrate, "BENCH.json..."});

}  // namespace
}  // namespace prunex::cli
