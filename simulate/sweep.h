// `prunex sweep` without its command line: the settings (the simulate fields that apply to
// every point, the GPU counts, the strategies), the points, each point's spec checked before
// any runs, and the points simulated in forked processes (SimGrid allows one engine per
// process), --jobs at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "records/scaling_record.h"
#include "settings/config_fields.h"
#include "simulate/simulate_config.h"

namespace prunex::sim {

// The sizes and strategies replace simulate's --nodes and --strategy.
struct SweepConfig {
  SimulateConfig sim;
  std::vector<int> gpus = {8, 16, 32, 64};
  std::vector<Strategy> strategies = all_strategies();
  std::string out = "out/sweep";
};
using SweepField = ConfigField<SweepConfig>;
const std::vector<SweepField>& sweep_fields();

// Points in sweep order: strategies in the order given, sizes ascending.
std::vector<std::pair<Strategy, int>> point_list(const SweepConfig& cfg);

// The GPUs per node filled in from the topology (0: the topology's); UsageError unless every
// size is a multiple of it.
void resolve_gpus_per_node(SweepConfig& cfg);

// Every point's spec (only point `only` when >= 0) and its row, before any simulation: a bad
// value or a platform beyond the memory stops the sweep before anything runs.
struct SweepPoints {
  std::vector<SimulateSpec> specs;
  std::vector<ScalingPoint> rows;
  std::string topology_name;
};
SweepPoints sweep_points(const SweepConfig& cfg, long only);
// The same for the points whose indices are listed (ascending).
SweepPoints sweep_points(const SweepConfig& cfg, const std::vector<long>& indices);

// Simulates the points, `jobs` at a time (no more at once than the memory holds), filling
// each row's times; done(i) as each finishes. A point whose process fails (dies, or throws)
// gets its row's `missing` said and the others run on. `inject_failure` (tests): the point of
// that index aborts (SIGABRT) in its process before it simulates, as a crash would.
void run_sweep_points(SweepPoints& points, int jobs,
                      const std::function<void(std::size_t done, const ScalingPoint&)>& done,
                      long inject_failure = -1);

}  // namespace prunex::sim
