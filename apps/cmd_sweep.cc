// `prunex sweep`: time per epoch of each strategy across cluster sizes, one simulation per
// (strategy, size) in its own forked process (SimGrid allows one engine per process), with
// speedup and efficiency relative to the smallest size, written to OUT/scaling.json. Points
// run --jobs at a time (fork_run_all); --point I runs one of them and --merge combines such
// per-point outputs (a SLURM array: scripts/slurm/sweep.sh) into the same scaling.json.
#include <unistd.h>
#include <limits>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/field_options.h"
#include "apps/prediction_bands.h"
#include "engine/error.h"
#include "records/json_file.h"
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
  if (!p.missing.empty()) {
    fmt::print(stderr, "{}point {} ({} on {} GPUs) failed: {}\n", isatty(2) != 0 ? "\n" : "",
               p.index, p.strategy, p.gpus, p.missing);
    return;
  }
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
    if (!p.missing.empty()) continue;
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

// The sweep a recorded config describes (a scaling.json's), its sizes resolved.
SweepConfig config_of(const nlohmann::json& config, const std::string& origin) {
  SweepConfig cfg;
  apply_config_json(sweep_fields(), cfg, config, origin);
  sim::resolve_gpus_per_node(cfg);
  return cfg;
}

// Each point checked against the sweep its config describes (the strategy and size of its
// index); missing ones named by them.
void name_missing_points(const nlohmann::json& config, const std::string& origin,
                         std::vector<ScalingPoint>& points) {
  const SweepConfig cfg = config_of(config, origin);
  const auto list = sim::point_list(cfg);
  for (ScalingPoint& p : points) {
    PRUNEX_USAGE(p.index >= 0 && p.index < static_cast<long>(list.size()), origin, ": point ",
                 p.index, " is not one of the sweep's ", list.size());
    const auto& [strategy, gpus] = list[static_cast<std::size_t>(p.index)];
    if (!p.missing.empty() && p.strategy.empty()) {
      p.strategy = std::string(strategy_name(strategy));
      p.gpus = gpus;
      p.nodes = gpus / cfg.sim.gpus_per_node;
    }
    PRUNEX_USAGE(p.strategy == strategy_name(strategy) && p.gpus == gpus &&
                     p.nodes == gpus / cfg.sim.gpus_per_node,
                 origin, ": point ", p.index, " is ", p.strategy, " on ", p.gpus, " GPUs (",
                 p.nodes, " nodes); the sweep's point ", p.index, " is ", strategy_name(strategy),
                 " on ", gpus, " GPUs (", gpus / cfg.sim.gpus_per_node, " nodes)");
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
  name_missing_points(config, dir, points);
  out_dir = std::make_unique<OutputDir>(cfg.out);
  config["out"] = cfg.out;
  fmt::print(stderr, "sweep: merged {} points from {}\n", points.size(), dir);
  return points;
}

std::string count(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The points simulated, after every spec has been checked; the bands of those that ran.
void run_points(const SweepConfig& cfg, const std::set<std::string>& given,
                sim::SweepPoints& points, int jobs, long inject_failure) {
  // Warnings once every check has passed: a refused sweep prints its one error line only.
  for (const auto& line : fields::settings_not_applying(given, cfg.strategies))
    fmt::print(stderr, "prunex sweep: warning: {}\n", line);
  fmt::print(stderr, "sweep: {} ({} x {}) on {}, {}\n",
             count(points.rows.size(), "simulation", "simulations"),
             count(cfg.strategies.size(), "strategy", "strategies"),
             count(cfg.gpus.size(), "size", "sizes"), points.topology_name,
             count(std::min<std::size_t>(jobs, points.rows.size()), "job", "jobs"));
  fmt::print(stderr, "sweep: {}\n", sim::assumptions_line(cfg.sim));
  sim::run_sweep_points(
      points, jobs,
      [&](std::size_t done, const ScalingPoint& p) { progress(done, points.rows.size(), p); },
      inject_failure);
  for (std::size_t i = 0; i < points.rows.size(); ++i)
    if (points.rows[i].missing.empty())
      points.rows[i].time_band = prediction_band_json(
          sim::bound_by(points.specs[i].band_key, points.rows[i].communication_share));
}

// Every point simulated (or point `only`), after every spec has been checked.
std::vector<ScalingPoint> simulate_points(const SweepConfig& cfg,
                                          const std::set<std::string>& given, long only, int jobs,
                                          long inject_failure) {
  sim::SweepPoints points = sim::sweep_points(cfg, only);
  run_points(cfg, given, points, jobs, inject_failure);
  return points.rows;
}

// --fill DIR: the points DIR/scaling.json lists as missing, simulated with its config; the
// others kept as they are.
std::vector<ScalingPoint> fill_points(const std::string& dir, int jobs, nlohmann::json& config,
                                      std::string& out) {
  const std::string file = dir + "/scaling.json";
  const nlohmann::json doc = read_json_file(file, "--fill");
  PRUNEX_USAGE(doc.is_object() && doc.contains("config") && doc["config"].is_object(), file,
               ": not a scaling.json of prunex sweep");
  PRUNEX_USAGE(!doc.contains("point"), file, ": one point of a SLURM array (--merge them first)");
  config = doc["config"];
  const SweepConfig cfg = config_of(config, file);
  const auto list = sim::point_list(cfg);
  // Each point that ran in its place in the sweep (by strategy and size); the others missing.
  std::map<std::pair<std::string, int>, std::size_t> index_of;
  for (std::size_t i = 0; i < list.size(); ++i)
    index_of[{std::string(strategy_name(list[i].first)), list[i].second}] = i;
  std::vector<ScalingPoint> by_index(list.size());
  std::vector<bool> ran(list.size(), false);
  std::size_t kept = 0;
  for (ScalingPoint& p : read_scaling_points(doc, file)) {
    if (!p.missing.empty()) continue;
    ++kept;
    const auto it = index_of.find({p.strategy, p.gpus});
    if (it == index_of.end() || ran[it->second]) continue;  // refused below
    ran[it->second] = true;
    by_index[it->second] = std::move(p);
  }
  std::vector<long> missing;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!ran[i]) missing.push_back(static_cast<long>(i));
  // Every point kept is one of the sweep's, once.
  PRUNEX_USAGE(kept + missing.size() == list.size(), file, ": holds ", kept,
               " points that ran and lacks ", missing.size(), " of the sweep's ", list.size(),
               ": points of another sweep, or twice");
  out = dir;
  fmt::print(stderr, "sweep: {} of {} points of {} to simulate\n", missing.size(), list.size(),
             file);
  if (!missing.empty()) {
    sim::SweepPoints points = sim::sweep_points(cfg, missing);
    run_points(cfg, {}, points, jobs, -1);
    for (ScalingPoint& p : points.rows) by_index[static_cast<std::size_t>(p.index)] = std::move(p);
  }
  return by_index;  // in the sweep's order, as a whole sweep writes them
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
    const long inject = args.get_int("inject-failure", -1, 0, std::numeric_limits<long>::max());
    if (args.get("merge")) {
      points = merge_points(args, cfg, config, out_dir);
    } else if (const auto dir = args.get("fill")) {
      for (const auto& f : sweep_fields())
        PRUNEX_USAGE(!args.has(f.name), "--fill takes the sweep's settings from ", *dir,
                     "/scaling.json: no --", f.name);
      PRUNEX_USAGE(!args.has("config") && !args.has("point") && !args.flag("count-points"),
                   "--fill takes no --config, --point or --count-points");
      PRUNEX_USAGE(std::filesystem::is_regular_file(*dir + "/scaling.json"), "--fill ", *dir,
                   ": no scaling.json in it");
      out_dir = std::make_unique<OutputDir>(*dir, "--fill");
      points = fill_points(*dir, jobs, config, cfg.out);
    } else {
      std::set<std::string> given;
      const nlohmann::json file = apply_options(sweep_fields(), args, cfg, &given);
      // A node count is one run's (simulate's or train's record holds it); a sweep's sizes are
      // --gpus.
      PRUNEX_USAGE(!file.contains("nodes"), "--config ", args.get_or("config", ""),
                   ": 'nodes' sets one run's size (a simulate or train record); a sweep takes "
                   "--gpus");
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
      points = simulate_points(cfg, given, only, jobs, inject);
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex sweep: error: {}\n", e.what());
    return 2;
  }
  std::vector<const ScalingPoint*> missing;
  for (const auto& p : points)
    if (!p.missing.empty()) missing.push_back(&p);
  if (only >= 0 && !missing.empty()) {  // an array task: no output, so --merge names it
    fmt::print(stderr, "prunex sweep: point {} failed: {}\n", only, missing[0]->missing);
    return 1;
  }
  print_scaling(points);
  nlohmann::json doc = scaling_json(points, config);
  if (only >= 0) {  // one point of a sweep, for --merge
    doc["point"] = only;
    doc["points"] = sim::point_list(cfg).size();
  }
  write_file_atomic(cfg.out + "/scaling.json", doc.dump(2) + "\n");
  fmt::print("wrote {}/scaling.json\n", cfg.out);
  if (missing.empty()) return 0;
  // The others are written; the failed ones are listed in scaling.json ("missing") with why.
  std::string list;
  for (const auto* p : missing)
    list += fmt::format("{}point {} ({} on {} GPUs): {}", list.empty() ? "" : "; ", p->index,
                        p->strategy, p->gpus, p->missing);
  fmt::print(stderr,
             "prunex sweep: {} of {} points failed ({}); {}/scaling.json lists them under "
             "\"missing\"; `prunex sweep --fill {}` simulates only those\n",
             missing.size(), points.size(), list, cfg.out, cfg.out);
  return 1;
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
                  "recomputed; every point once, all from one sweep; points with no output "
                  "listed under \"missing\")",
                  ""});
  opts.push_back({"fill", "DIR",
                  "simulate only the points DIR/scaling.json lists as missing (failed or "
                  "absent), with its settings, and write the completed DIR/scaling.json",
                  ""});
  opts.push_back(integer_option("inject-failure", "I",
                                "tests: point I's process aborts (SIGABRT) before it simulates, "
                                "as a crash would",
                                "", 0, std::numeric_limits<long>::max()));
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
    "(--point I, scripts/slurm/sweep.sh), then --merge. A point whose process dies does not\n"
    "stop the others: scaling.json lists it under \"missing\" with the reason, the sweep\n"
    "exits 1, and `prunex sweep --fill OUT` simulates only the missing points.",
    sweep_options(), run_sweep});

}  // namespace
}  // namespace prunex::cli
