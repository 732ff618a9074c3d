// `prunex sweep`: time per epoch of each strategy across cluster sizes, one simulation per
// (strategy, size) in its own forked process (SimGrid allows one engine per process), with
// speedup and efficiency relative to the smallest size, written to OUT/scaling.json.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/metrics.h"
#include "apps/cli.h"
#include "apps/simulate_options.h"
#include "backends/simgrid/fork_run.h"
#include "engine/error.h"

namespace prunex::cli {
namespace {

std::vector<Option> options() {
  std::vector<Option> o = {
      {"topology", "NAME|FILE", "cluster preset or topology JSON file (required)", ""},
      {"gpus", "LIST", "total GPUs per point, multiples of --gpus-per-node", "8,16,32,64"},
      {"strategy", "LIST", "strategies, comma-separated", "hsadmm,hsadmm-flat,ddp,topk"},
      {"out", "DIR", "output folder (scaling.json)", "out/sweep"}};
  for (auto& x : simulate_model_options()) o.push_back(x);
  return o;
}

struct Point {
  std::string strategy;
  int gpus = 0, nodes = 0;
  sim::SimulateSpec spec;
  double epoch_s = 0, iteration_s = 0;
};

void progress(std::size_t done, std::size_t total, const Point& p) {
  const bool tty = isatty(2) != 0;
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "%s[%s%s] %zu/%zu  %-11s %5d GPUs  %.3f s/epoch%s", tty ? "\r" : "",
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done,
               total, p.strategy.c_str(), p.gpus, p.epoch_s, tty && done < total ? "" : "\n");
  std::fflush(stderr);
}

std::vector<int> parse_gpus(const std::string& text, int gpn) {
  std::vector<int> out;
  for (const auto& s : split_list(text)) {
    char* end = nullptr;
    const long g = std::strtol(s.c_str(), &end, 10);
    PRUNEX_USAGE(!s.empty() && *end == '\0' && g >= 1 && g <= (1L << 24), "--gpus: '", s,
                 "' is not a positive GPU count");
    PRUNEX_USAGE(g % gpn == 0, "--gpus: ", g, " is not a multiple of --gpus-per-node ", gpn);
    out.push_back(static_cast<int>(g));
  }
  PRUNEX_USAGE(!out.empty(), "--gpus: empty list");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int run_sweep(const Args& args) {
  const std::string out = args.get_or("out", "out/sweep");
  std::vector<Point> points;
  std::vector<std::string> strategies;
  nlohmann::json config;
  try {
    const Topology preset = load_sim_topology(args);
    const long gpn = args.get_int("gpus-per-node", preset.gpus_per_node);
    PRUNEX_USAGE(gpn >= 1 && gpn <= preset.gpus_per_node, "--gpus-per-node must be in [1, ",
                 preset.gpus_per_node, "] for topology ", preset.name, " (got ", gpn, ")");
    const auto gpus = parse_gpus(args.get_or("gpus", "8,16,32,64"), static_cast<int>(gpn));
    strategies = split_list(args.get_or("strategy", "hsadmm,hsadmm-flat,ddp,topk"));
    PRUNEX_USAGE(!strategies.empty(), "--strategy: empty list");
    std::vector<Topology> sized;
    for (int g : gpus)
      sized.push_back(fit_topology(preset, g / static_cast<int>(gpn), static_cast<int>(gpn)));
    for (const auto& s : strategies) {
      const sim::SimulateSpec base = base_spec(args, s);
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        Point p{std::string(strategy_name(parse_strategy(s))), gpus[i],
                gpus[i] / static_cast<int>(gpn), base};
        shape_spec(p.spec, args, sized[i], p.nodes, static_cast<int>(gpn));
        points.push_back(std::move(p));
      }
    }
    config = points.front().spec.config;
    config.erase("strategy");
    config.erase("nodes");
    config["gpus"] = gpus;
    config["strategies"] = strategies;
    config["executor"] = "simgrid";
    config["network_model"] = points.front().spec.sim.network_model;
    std::fprintf(stderr, "sweep: %zu simulations (%zu strategies x %zu sizes) on %s\n",
                 points.size(), strategies.size(), gpus.size(), preset.name.c_str());
    for (std::size_t i = 0; i < points.size(); ++i) {
      Point& p = points[i];
      const auto r = sim::fork_run([&] {
        const auto res = sim::simulate_run(p.spec, /*records=*/false);
        return std::vector<double>{res.time_per_epoch_s, res.time_per_iteration_s};
      });
      p.epoch_s = r.at(0);
      p.iteration_s = r.at(1);
      progress(i + 1, points.size(), p);
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "prunex sweep: error: %s\n", e.what());
    return 2;
  }

  nlohmann::json doc = nlohmann::json::object();
  std::printf("%-12s %6s %6s %16s %9s %11s\n", "strategy", "gpus", "nodes", "time/epoch (s)",
              "speedup", "efficiency");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const Point* base = &p;
    for (const auto& q : points)
      if (q.strategy == p.strategy && q.gpus < base->gpus) base = &q;
    const double speedup = base->epoch_s / p.epoch_s;
    const double eff = speedup / (static_cast<double>(p.gpus) / base->gpus);
    doc[p.strategy].push_back({{"gpus", p.gpus},
                               {"nodes", p.nodes},
                               {"time_per_epoch_s", p.epoch_s},
                               {"time_per_iteration_s", p.iteration_s},
                               {"speedup", speedup},
                               {"efficiency", eff}});
    std::printf("%-12s %6d %6d %16.4f %9.3f %11.3f\n", p.strategy.c_str(), p.gpus, p.nodes,
                p.epoch_s, speedup, eff);
  }
  doc["config"] = config;
  write_file_atomic(out + "/scaling.json", doc.dump(2) + "\n");
  std::printf("wrote %s/scaling.json\n", out.c_str());
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "sweep", "simulated scaling of strategies across cluster sizes, writes scaling.json",
    "prunex sweep --topology NAME|FILE [--model M] [--gpus 8,16,32,64] [--strategy LIST] "
    "[--out DIR] ...",
    "Simulates each (strategy, GPU count) like `prunex simulate` (same options), each in its\n"
    "own process, and writes OUT/scaling.json: per strategy a list of {gpus, nodes,\n"
    "time_per_epoch_s, speedup, efficiency} relative to the smallest size, plus the config.\n\n"
    "example:\n"
    "  prunex sweep --topology puhti --model resnet152 --gpus 8,16,32,64 \\\n"
    "      --strategy hsadmm,hsadmm-flat,ddp,topk --out out/sweep",
    options(), run_sweep});

}  // namespace
}  // namespace prunex::cli
