// `prunex winners`: which strategy is fastest per epoch at each (GPU count, NIC bandwidth) of a
// grid, on one topology and model: a sweep per bandwidth (each NIC at that speed, as
// --nic-gbits sets it), every point in its own process, then simulate/winners.h's reading of
// the rows: OUT/winners.json and a table per bandwidth. `prunex plot winners` draws the map.
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include <fmt/core.h>

#include "apps/cli.h"
#include "apps/field_options.h"
#include "apps/prediction_bands.h"
#include "engine/text_parse.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "simulate/run_header.h"
#include "simulate/sweep.h"
#include "simulate/winners.h"

namespace prunex::cli {
namespace {

using sim::SweepConfig;

// The sweep at each bandwidth, every spec checked before any point runs.
std::vector<sim::GridPoint> simulate_grid(const SweepConfig& base, const std::vector<double>& bw,
                                          int jobs) {
  std::vector<sim::SweepPoints> sweeps;
  for (double b : bw) {
    SweepConfig cfg = base;
    cfg.sim.nic_gbits = b;
    sweeps.push_back(sim::sweep_points(cfg, -1));
  }
  const std::size_t total = sweeps.size() * sweeps.front().rows.size();
  fmt::print(stderr, "winners: {} simulations ({} strategies x {} sizes x {} bandwidths) on {}\n",
             total, base.strategies.size(), base.gpus.size(), bw.size(),
             sweeps.front().topology_name);
  fmt::print(stderr, "winners: {}\n", sim::assumptions_line(base.sim));
  std::vector<sim::GridPoint> grid;
  std::size_t done = 0;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    sim::run_sweep_points(sweeps[i], jobs, [&](std::size_t, const ScalingPoint&) {
      ++done;
      fmt::print(stderr, "{}winners: {}/{} simulated{}", isatty(2) ? "\r" : "", done, total,
                 isatty(2) && done < total ? "" : "\n");
      std::fflush(stderr);
    });
    for (std::size_t k = 0; k < sweeps[i].rows.size(); ++k) {
      ScalingPoint row = sweeps[i].rows[k];
      row.time_band =
          prediction_band_json(sim::bound_by(sweeps[i].specs[k].band_key, row.communication_share));
      grid.push_back({bw[i], row});
    }
  }
  return grid;
}

// The map as text: a row per GPU count, a column per bandwidth, each cell the winner and its
// margin over the runner-up; then each cell's verdict and the crossovers.
void print_map(const nlohmann::json& w) {
  fmt::print("{:>7}", "GPUs");
  for (double b : w["bandwidths_gbits"]) fmt::print("  {:>20}", fmt::format("{:g} Gbit/s", b));
  fmt::print("\n");
  for (int g : w["gpus"]) {
    fmt::print("{:7}", g);
    for (double b : w["bandwidths_gbits"])
      for (const auto& c : w["cells"])
        if (c["gpus"] == g && c["nic_gbits"] == b)
          fmt::print("  {:>20}", fmt::format("{} {:.2f}x", c["winner"].get<std::string>(),
                                             c["margin"].get<double>()));
    fmt::print("\n");
  }
  for (const auto& x : w["crossovers"]) {
    const std::string pays = x["hsadmm_pays"];
    std::string at;
    for (double b : x["crossings_gbits"]) at += fmt::format("{}{:.3g}", at.empty() ? "" : ", ", b);
    fmt::print("{} GPUs: hsadmm faster than ddp {}\n", x["gpus"].get<int>(),
               pays == "everywhere" ? std::string("at every bandwidth of the grid")
               : pays == "nowhere"  ? std::string("at no bandwidth of the grid")
               : pays == "between"  ? "on alternate sides of " + at + " Gbit/s"
                                    : pays + " " + at + " Gbit/s");
  }
}

int run_winners(const Args& args) {
  sim::WinnersConfig cfg;
  SweepConfig& sweep = cfg.sweep;
  std::vector<sim::MeasuredAccuracy> accuracy;
  nlohmann::json config;
  std::unique_ptr<OutputDir> out_dir;
  std::vector<sim::GridPoint> grid;
  try {
    const long cores = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
    const int jobs = static_cast<int>(args.get_int("jobs", cores, 1, 4096));
    std::set<std::string> given;
    apply_options(sim::winners_fields(), args, cfg, &given);
    for (const auto& path : split_list(args.get_or("accuracy", "")))
      accuracy.push_back(sim::read_measured_accuracy(path));
    sim::resolve_gpus_per_node(sweep);
    out_dir = std::make_unique<OutputDir>(sweep.out);
    config = config_json(sim::winners_fields(), cfg);
    config["executor"] = "simgrid";
    for (const auto& line : fields::settings_not_applying(given, sweep.strategies))
      fmt::print(stderr, "prunex winners: warning: {}\n", line);
    grid = simulate_grid(sweep, cfg.bandwidths, jobs);
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex winners: error: {}\n", e.what());
    return 2;
  }
  const nlohmann::json w = sim::winners_json(grid, accuracy, config);
  print_map(w);
  write_file_atomic(sweep.out + "/winners.json", w.dump(2) + "\n");
  fmt::print("wrote {}/winners.json (prunex plot winners {}/winners.json --out map.png)\n",
             sweep.out, sweep.out);
  return 0;
}

std::vector<Option> winners_options() {
  auto opts = field_options(sim::winners_fields(), sim::WinnersConfig{}, {}, "winners.json");
  opts.push_back({"accuracy", "FILES",
                  "metrics.json of `prunex train` runs: each strategy's measured accuracy (its "
                  "last iteration), named beside the verdicts as the cost against ddp's",
                  ""});
  opts.push_back(integer_option(
      "jobs", "N",
      "points simulated at once, each in its own process (no more at once than the memory holds)",
      "the cores", 1, 4096));
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "winners", "which strategy is fastest per epoch across GPU counts and NIC bandwidths",
    "prunex winners --topology NAME|FILE [--model M] [--gpus 8,16,32,64] "
    "[--bandwidths 10,25,100,200] [--strategy LIST] [--accuracy FILES] [--out DIR] ...",
    "Simulates every strategy (--strategy, default all) at each GPU count (--gpus) with each\n"
    "NIC at each bandwidth (--bandwidths, Gbit/s, as --nic-gbits sets one), like `prunex\n"
    "sweep` (same options), and writes OUT/winners.json: per cell the strategies' times per\n"
    "epoch with their 80% error bands, the winner, the runner-up and the margin (its time over\n"
    "the winner's), and a verdict; per GPU count the bandwidths where hsadmm's and ddp's times\n"
    "cross (interpolated in log bandwidth between the grid's columns) and on which side hsadmm\n"
    "is faster. --accuracy names measured runs, so a verdict carries the winner's accuracy\n"
    "cost against ddp's. `prunex plot winners OUT/winners.json --out map.png` draws the map;\n"
    "`--config OUT/winners.json` reruns the grid.\n\n"
    "example:\n"
    "  prunex winners --topology puhti --model resnet152 --gpus 8,64,512 \\\n"
    "      --bandwidths 10,25,100,200 --strategy hsadmm,ddp,fp16,powersgd \\\n"
    "      --accuracy "
    "results/fashion_mnist/hsadmm/metrics.json,results/fashion_mnist/ddp/metrics.json \\\n"
    "      --out out/winners-puhti",
    winners_options(), run_winners});

}  // namespace
}  // namespace prunex::cli
