// `prunex sweep`: time per epoch of each strategy across cluster sizes, one simulation per
// (strategy, size) in its own forked process (SimGrid allows one engine per process), with
// speedup and efficiency relative to the smallest size, written to OUT/scaling.json.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/field_options.h"
#include "backends/simgrid/fork_run.h"
#include "backends/simgrid/simulate_config.h"
#include "engine/error.h"
#include "engine/text_parse.h"
#include "records/run_record.h"
#include "topologies/topology_io.h"

namespace prunex::cli {
namespace {

// Sweep settings: the simulate fields that apply to every point, the GPU counts and the
// strategies (the sizes and strategies replace simulate's --nodes and --strategy).
struct SweepConfig {
  sim::SimulateConfig sim;
  std::vector<int> gpus = {8, 16, 32, 64};
  std::vector<Strategy> strategies = all_strategies();
  std::string out = "out/sweep";
};
using SweepField = ConfigField<SweepConfig>;

const std::vector<SweepField>& sweep_fields() {
  static const std::vector<SweepField> fields = [] {
    std::vector<SweepField> f = {
        {"gpus", "LIST", "total GPUs per point, multiples of --gpus-per-node",
         [](SweepConfig& c, const std::string& v) {
           c.gpus.clear();
           for (const auto& g : split_list(v)) c.gpus.push_back(parse_int(g, "--gpus", 1, 1 << 24));
           PRUNEX_USAGE(!c.gpus.empty(), "--gpus: empty list");
           std::sort(c.gpus.begin(), c.gpus.end());
           c.gpus.erase(std::unique(c.gpus.begin(), c.gpus.end()), c.gpus.end());
         },
         [](const SweepConfig& c) { return nlohmann::json(c.gpus); }},
        {"strategy", "LIST", "strategies, comma-separated",
         [](SweepConfig& c, const std::string& v) {
           c.strategies.clear();
           for (const auto& s : split_list(v)) c.strategies.push_back(parse_strategy(s));
           PRUNEX_USAGE(!c.strategies.empty(), "--strategy: empty list");
         },
         [](const SweepConfig& c) {
           nlohmann::json a = nlohmann::json::array();
           for (Strategy s : c.strategies) a.push_back(std::string(strategy_name(s)));
           return a;
         }},
        {"out", "DIR", "output folder (scaling.json)",
         [](SweepConfig& c, const std::string& v) {
           PRUNEX_USAGE(!v.empty(), "--out must not be empty");
           c.out = v;
         },
         [](const SweepConfig& c) { return nlohmann::json(c.out); }}};
    for (const auto& sf : sim::simulate_fields())
      if (sf.name != "nodes" && sf.name != "strategy" && sf.name != "out")
        f.push_back(nested_field(sf, &SweepConfig::sim));
    return f;
  }();
  return fields;
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

int run_sweep(const Args& args) {
  SweepConfig cfg;
  std::vector<Point> points;
  nlohmann::json config;
  std::string topology_name;
  try {
    apply_options(sweep_fields(), args, cfg);
    PRUNEX_USAGE(!cfg.sim.topology.empty(),
                 "--topology is required (a preset name or a JSON file)");
    if (cfg.sim.gpus_per_node == 0)
      cfg.sim.gpus_per_node = load_topology(cfg.sim.topology).gpus_per_node;
    for (int g : cfg.gpus)
      PRUNEX_USAGE(g % cfg.sim.gpus_per_node == 0, "--gpus: ", g,
                   " is not a multiple of --gpus-per-node ", cfg.sim.gpus_per_node);
    for (Strategy st : cfg.strategies) {
      for (int g : cfg.gpus) {
        sim::SimulateConfig c = cfg.sim;
        c.strategy = st;
        c.nodes = g / c.gpus_per_node;
        Point p{std::string(strategy_name(st)), g, c.nodes, sim::make_spec(c)};
        topology_name = p.spec.topology.name;
        points.push_back(std::move(p));
      }
    }
    config = config_json(sweep_fields(), cfg);
    config["executor"] = "simgrid";
    std::fprintf(stderr, "sweep: %zu simulations (%zu strategies x %zu sizes) on %s\n",
                 points.size(), cfg.strategies.size(), cfg.gpus.size(), topology_name.c_str());
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
  write_file_atomic(cfg.out + "/scaling.json", doc.dump(2) + "\n");
  std::printf("wrote %s/scaling.json\n", cfg.out.c_str());
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "sweep", "simulated scaling of strategies across cluster sizes, writes scaling.json",
    "prunex sweep --topology NAME|FILE [--model M] [--gpus 8,16,32,64] [--strategy LIST] "
    "[--out DIR] ...",
    "Simulates each (strategy, GPU count) like `prunex simulate` (same options), each in its\n"
    "own process, and writes OUT/scaling.json: per strategy a list of {gpus, nodes,\n"
    "time_per_epoch_s, time_per_iteration_s, speedup, efficiency} relative to the smallest\n"
    "size, plus the config (`--config OUT/scaling.json` takes it back).\n\n"
    "example:\n"
    "  prunex sweep --topology puhti --model resnet152 --gpus 8,16,32,64 \\\n"
    "      --strategy hsadmm,hsadmm-flat,ddp,topk --out out/sweep",
    field_options(sweep_fields(), SweepConfig{}), run_sweep});

}  // namespace
}  // namespace prunex::cli
