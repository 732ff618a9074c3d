// `prunex sweep`: time per epoch of each strategy across cluster sizes, one simulation per
// (strategy, size) in its own forked process (SimGrid allows one engine per process), with
// speedup and efficiency relative to the smallest size, written to OUT/scaling.json. Points
// run --jobs at a time (fork_run_all); --point I runs one of them and --merge combines such
// per-point outputs (a SLURM array: scripts/slurm/sweep.sh) into the same scaling.json.
#include <unistd.h>
#include <limits>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/field_options.h"
#include "apps/prediction_bands.h"
#include "engine/error.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "records/scaling_record.h"
#include "settings/run_fields.h"
#include "simulate/run_header.h"
#include "simulate/simulate_config.h"
#include "simulate/sweep.h"

namespace prunex::cli {
namespace {

using sim::sweep_fields;
using sim::SweepConfig;

void progress(std::size_t done, std::size_t total, const ScalingPoint& p) {
  const bool tty = isatty(2) != 0;
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  fmt::print(stderr, "{}[{}{}] {}/{}  {:<11} {:6} GPUs  {:.3f} s/epoch{}", tty ? "\r" : "",
             std::string(filled, '#'), std::string(width - filled, '.'), done, total, p.strategy,
             p.gpus, p.epoch_s, tty && done < total ? "" : "\n");
  std::fflush(stderr);
}

// The scaling table on stdout: the rows of scaling.json.
void print_scaling(const std::vector<ScalingPoint>& points) {
  fmt::print("{:<12} {:>7} {:>6} {:>16} {:>13} {:>9} {:>11}\n", "strategy", "gpus", "nodes",
             "time/epoch (s)", "80% band", "speedup", "efficiency");
  for (const ScalingPoint& p : points) {
    const ScalingGain g = scaling_gain(points, p);
    const std::string band =
        p.time_band.is_object()
            ? fmt::format("{:+.0f}%/{:+.0f}%", 100 * p.time_band["low"].get<double>(),
                          100 * p.time_band["high"].get<double>())
            : "-";
    fmt::print("{:<12} {:7} {:6} {:16.4f} {:>13} {:9.3f} {:11.3f}", p.strategy, p.gpus, p.nodes,
               p.epoch_s, band, g.speedup, g.efficiency);
    if (p.expected_s > 0)
      fmt::print("   run {:.3f} h, with failures {:.3f} h", p.run_s / 3600, p.expected_s / 3600);
    fmt::print("\n");
  }
}

// --merge DIR: the points of a SLURM array sweep, combined.
std::vector<ScalingPoint> merge_points(const Args& args, SweepConfig& cfg, nlohmann::json& config,
                                       std::unique_ptr<OutputDir>& out_dir) {
  const std::string dir = *args.get("merge");
  PRUNEX_USAGE(!args.get("point") && !args.flag("count-points"),
               "--merge takes no --point or --count-points");
  for (const auto& f : sweep_fields())
    PRUNEX_USAGE(f.name == "out" || !args.has(f.name), "--merge takes the points' settings ",
                 "as they ran: no --", f.name);
  PRUNEX_USAGE(!args.has("config"), "--merge takes the points' settings as they ran: no --config");
  if (auto out = args.get("out")) cfg.out = *out;
  PRUNEX_USAGE(!cfg.out.empty(), "--out must not be empty");
  std::vector<ScalingPoint> points = merge_scaling_points(dir, config);
  out_dir = std::make_unique<OutputDir>(cfg.out);
  config["out"] = cfg.out;
  fmt::print(stderr, "sweep: merged {} points from {}\n", points.size(), dir);
  return points;
}

std::string count(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Every point simulated (or point `only`), after every spec has been checked.
std::vector<ScalingPoint> simulate_points(const SweepConfig& cfg,
                                          const std::set<std::string>& given, long only, int jobs) {
  sim::SweepPoints points = sim::sweep_points(cfg, only);
  // Warnings once every check has passed: a refused sweep prints its one error line only.
  for (const auto& line : fields::settings_not_applying(given, cfg.strategies))
    fmt::print(stderr, "prunex sweep: warning: {}\n", line);
  fmt::print(stderr, "sweep: {} ({} x {}) on {}, {}\n",
             count(points.rows.size(), "simulation", "simulations"),
             count(cfg.strategies.size(), "strategy", "strategies"),
             count(cfg.gpus.size(), "size", "sizes"), points.topology_name,
             count(std::min<std::size_t>(jobs, points.rows.size()), "job", "jobs"));
  fmt::print(stderr, "sweep: {}\n", sim::assumptions_line(cfg.sim));
  sim::run_sweep_points(points, jobs, [&](std::size_t done, const ScalingPoint& p) {
    progress(done, points.rows.size(), p);
  });
  for (std::size_t i = 0; i < points.rows.size(); ++i)
    points.rows[i].time_band = prediction_band_json(
        sim::bound_by(points.specs[i].band_key, points.rows[i].communication_share));
  return points.rows;
}

int run_sweep(const Args& args) {
  SweepConfig cfg;
  std::vector<ScalingPoint> points;
  nlohmann::json config;
  long only = -1;                      // --point
  std::unique_ptr<OutputDir> out_dir;  // --out checked and claimed before any simulation
  try {
    const long cores = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
    const int jobs = static_cast<int>(args.get_int("jobs", cores, 1, 4096));
    if (args.get("merge")) {
      points = merge_points(args, cfg, config, out_dir);
    } else {
      std::set<std::string> given;
      apply_options(sweep_fields(), args, cfg, &given);
      sim::resolve_gpus_per_node(cfg);
      const std::size_t n = sim::point_list(cfg).size();
      if (args.flag("count-points")) {
        fmt::print("{}\n", n);
        return 0;
      }
      out_dir = std::make_unique<OutputDir>(cfg.out);
      only = args.get_int("point", -1, 0, static_cast<long>(n) - 1);
      config = config_json(sweep_fields(), cfg);
      config["executor"] = "simgrid";
      points = simulate_points(cfg, given, only, jobs);
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex sweep: error: {}\n", e.what());
    return 2;
  }
  print_scaling(points);
  nlohmann::json doc = scaling_json(points, config);
  if (only >= 0) {  // one point of a sweep, for --merge
    doc["point"] = only;
    doc["points"] = sim::point_list(cfg).size();
  }
  write_file_atomic(cfg.out + "/scaling.json", doc.dump(2) + "\n");
  fmt::print("wrote {}/scaling.json\n", cfg.out);
  return 0;
}

std::vector<Option> sweep_options() {
  auto opts = field_options(sweep_fields(), SweepConfig{}, {}, "scaling.json");
  opts.push_back(integer_option(
      "jobs", "N",
      "points simulated at once, each in its own process (no more at once than the memory holds)",
      "the cores", 1, 4096));
  opts.push_back(integer_option("point", "I",
                                "simulate only point I (0-based, strategies x sizes in order) and "
                                "write its scaling.json for --merge (a SLURM array task: "
                                "scripts/slurm/)",
                                "", 0, std::numeric_limits<long>::max()));
  opts.push_back({"count-points", "", "print the number of points and exit", ""});
  opts.push_back({"merge", "DIR",
                  "combine the --point outputs in DIR/*/ into OUT/scaling.json (speedups "
                  "recomputed; every point once, all from one sweep)",
                  ""});
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "sweep", "simulated scaling of strategies across cluster sizes, writes scaling.json",
    "prunex sweep --topology NAME|FILE [--model M] [--gpus 8,16,32,64] [--strategy LIST] "
    "[--out DIR] ...",
    "Simulates each (strategy, GPU count) like `prunex simulate` (same options), each in its\n"
    "own process, and writes OUT/scaling.json: per strategy a list of {gpus, nodes,\n"
    "time_per_epoch_s, time_per_iteration_s, speedup, efficiency} relative to the smallest\n"
    "size, plus the config (`--config OUT/scaling.json` takes it back). With --mtbf-hours each\n"
    "point also has run_s (the run failure-free) and expected_with_failures_s (failures.h:\n"
    "the node MTBF over the point's nodes, checkpoints as `prunex simulate` takes them).\n\n"
    "example:\n"
    "  prunex sweep --topology puhti --model resnet152 --gpus 8,16,32,64 \\\n"
    "      --strategy hsadmm,hsadmm-flat,ddp,topk --out out/sweep\n\n"
    "Points run in parallel processes (--jobs, default the cores) with the same scaling.json\n"
    "as one at a time. Sweeps too large for one machine: one SLURM array task per point\n"
    "(--point I, scripts/slurm/sweep.sh), then --merge.",
    sweep_options(), run_sweep});

}  // namespace
}  // namespace prunex::cli
