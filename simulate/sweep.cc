#include "simulate/sweep.h"

#include <cstdlib>

#include <algorithm>

#include <fmt/core.h>

#include "engine/error.h"
#include "engine/text_parse.h"
#include "host/host_memory.h"
#include "simulate/fork_run.h"
#include "topologies/topology_io.h"

namespace prunex::sim {
namespace {

SweepField gpus_field() {
  return {"gpus", "LIST", "total GPUs per point, multiples of --gpus-per-node",
          [](SweepConfig& c, const std::string& v) {
            c.gpus.clear();
            for (const auto& g : split_list(v)) {
              const int n = parse_int(g, "--gpus", 1, 1 << 24);
              PRUNEX_USAGE(std::find(c.gpus.begin(), c.gpus.end(), n) == c.gpus.end(),
                           "--gpus lists ", n, " twice");
              c.gpus.push_back(n);
            }
            PRUNEX_USAGE(!c.gpus.empty(), "--gpus: empty list");
            std::sort(c.gpus.begin(), c.gpus.end());
          },
          [](const SweepConfig& c) { return nlohmann::json(c.gpus); }};
}

SweepField strategies_field() {
  return {"strategy", "LIST", "strategies, comma-separated",
          [](SweepConfig& c, const std::string& v) {
            c.strategies.clear();
            for (const auto& s : split_list(v)) {
              const Strategy st = parse_strategy(s);
              PRUNEX_USAGE(
                  std::find(c.strategies.begin(), c.strategies.end(), st) == c.strategies.end(),
                  "--strategy lists ", s, " twice");
              c.strategies.push_back(st);
            }
            PRUNEX_USAGE(!c.strategies.empty(), "--strategy: empty list");
          },
          [](const SweepConfig& c) {
            nlohmann::json a = nlohmann::json::array();
            for (Strategy s : c.strategies) a.push_back(std::string(strategy_name(s)));
            return a;
          }};
}

}  // namespace

const std::vector<SweepField>& sweep_fields() {
  static const std::vector<SweepField> fields = [] {
    std::vector<SweepField> f = {gpus_field(),
                                 strategies_field(),
                                 {"out", "DIR", "output folder (scaling.json)",
                                  [](SweepConfig& c, const std::string& v) {
                                    PRUNEX_USAGE(!v.empty(), "--out must not be empty");
                                    c.out = v;
                                  },
                                  [](const SweepConfig& c) { return nlohmann::json(c.out); }}};
    for (const auto& sf : simulate_fields())
      if (sf.name != "nodes" && sf.name != "strategy" && sf.name != "out")
        f.push_back(nested_field(sf, &SweepConfig::sim));
    return f;
  }();
  return fields;
}

std::vector<std::pair<Strategy, int>> point_list(const SweepConfig& cfg) {
  std::vector<std::pair<Strategy, int>> out;
  for (Strategy st : cfg.strategies)
    for (int g : cfg.gpus) out.emplace_back(st, g);
  return out;
}

void resolve_gpus_per_node(SweepConfig& cfg) {
  PRUNEX_USAGE(!cfg.sim.topology.empty(), "--topology is required (a preset name or a JSON file)");
  if (cfg.sim.gpus_per_node == 0)
    cfg.sim.gpus_per_node = load_topology(cfg.sim.topology).gpus_per_node;
  for (int g : cfg.gpus)
    PRUNEX_USAGE(g % cfg.sim.gpus_per_node == 0, "--gpus: ", g,
                 " is not a multiple of --gpus-per-node ", cfg.sim.gpus_per_node);
}

SweepPoints sweep_points(const SweepConfig& cfg, long only) {
  std::vector<long> indices;
  const long n = static_cast<long>(point_list(cfg).size());
  for (long i = 0; i < n; ++i)
    if (only < 0 || i == only) indices.push_back(i);
  return sweep_points(cfg, indices);
}

SweepPoints sweep_points(const SweepConfig& cfg, const std::vector<long>& indices) {
  SweepPoints out;
  const auto list = point_list(cfg);
  for (const long index : indices) {
    PRUNEX_CHECK(index >= 0 && index < static_cast<long>(list.size()), "no point ", index);
    const auto i = static_cast<std::size_t>(index);
    SimulateConfig c = cfg.sim;
    c.strategy = list[i].first;
    c.nodes = list[i].second / c.gpus_per_node;
    // --wire-dtype and --pipeline-buckets shape hsadmm's and hsadmm-rail's payload; the others
    // run as they are.
    if (!packs_compact_payload(c.strategy)) {
      c.hsadmm.wire_dtype = DType::f32;
      c.hsadmm.pipeline_buckets = false;
    }
    // A what-if that fits one size and not another (a node index, a GPU list) is refused
    // here, before anything runs, naming the point.
    try {
      out.specs.push_back(make_spec(c, /*records=*/false));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("point {} ({} on {} GPUs, {} nodes): {}", i,
                                   strategy_name(c.strategy), list[i].second, c.nodes, e.what()));
    }
    out.topology_name = out.specs.back().topology.name;
    ScalingPoint row;
    row.strategy = strategy_name(c.strategy);
    row.gpus = list[i].second;
    row.nodes = c.nodes;
    row.index = index;
    out.rows.push_back(row);
  }
  return out;
}

void run_sweep_points(SweepPoints& points, int jobs,
                      const std::function<void(std::size_t, const ScalingPoint&)>& done,
                      long inject_failure) {
  std::vector<std::function<std::vector<double>()>> runs;
  std::vector<double> bytes;
  for (std::size_t k = 0; k < points.specs.size(); ++k) {
    const SimulateSpec& spec = points.specs[k];
    const bool crash = points.rows[k].index == inject_failure;
    runs.push_back([&spec, crash] {
      if (crash) std::abort();
      const auto res = simulate_run(spec, /*records=*/false);
      return std::vector<double>{res.time_per_epoch_s, res.time_per_iteration_s, res.run_s,
                                 res.failures ? res.failures->expected_s : 0.0,
                                 res.communication_share};
    });
    bytes.push_back(spec.memory_bytes);
  }
  std::size_t finished = 0;
  fork_run_all(
      runs, jobs, bytes, available_memory_bytes(),
      [&](std::size_t i, const std::vector<double>& r) {
        ScalingPoint& p = points.rows[i];
        p.epoch_s = r.at(0);
        p.iteration_s = r.at(1);
        p.run_s = r.at(2);
        p.expected_s = r.at(3);
        p.communication_share = r.at(4);
        done(++finished, p);
      },
      [&](std::size_t i, const std::string& why) {
        ScalingPoint& p = points.rows[i];
        p.missing = why;
        done(++finished, p);
      });
}

}  // namespace prunex::sim
