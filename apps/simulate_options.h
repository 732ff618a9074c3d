// Options shared by `prunex simulate` and `prunex sweep`: the model, strategy, mask model and
// simulator settings, turned into a sim::SimulateSpec (everything validated up front, so bad
// input is a UsageError before anything is simulated or written).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "backends/simgrid/simulate_run.h"
#include "engine/mask_model.h"

namespace prunex::cli {

// The last iteration's "density" map (pruned layer -> kept fraction) of a live run's
// metrics.json; UsageError naming `where` when it has none.
std::map<std::string, double> last_densities(const nlohmann::json& run, const std::string& where);

// The masks that compacted each recorded iteration's inter-node payload in a live hsadmm run
// (metrics.json "payload_density"; for runs that predate it, each iteration's "density").
RecordedMasks payload_masks(const nlohmann::json& run, const ModelLayout& layout,
                            const SparsitySpec& spec, const std::string& where);

// Model / strategy / mask / simulator options (not --topology, --nodes, --strategy, --out).
std::vector<Option> simulate_model_options();

// The topology named by --topology (required).
Topology load_sim_topology(const Args& args);
// Applies --calibration FILE (backends/simgrid/calibration.h), read once, to a run of
// cfg.nodes x cfg.gpus_per_node: the topology's links and speeds, and cfg's per-op costs.
// Nothing changes without the option.
void apply_calibration_option(const Args& args, Topology& t, sim::SimConfig& cfg);
// Checks gpus_per_node in [1, the topology's] and scales the topology out (a note on
// stderr) when `nodes` exceeds its node count.
Topology fit_topology(Topology t, int nodes, int gpus_per_node);

// Everything but the cluster shape, for one strategy; the shape is filled by
// shape_spec(). Reads --masks (a live run's metrics.json) if given.
sim::SimulateSpec base_spec(const Args& args, const std::string& strategy);
// Sets nodes x gpus_per_node (and the topology, the synthetic union mask for that size).
void shape_spec(sim::SimulateSpec& spec, const Args& args, const Topology& topology, int nodes,
                int gpus_per_node);

}  // namespace prunex::cli
