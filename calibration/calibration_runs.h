// Calibration from live runs: the compute speed and each memory phase's speed of a
// topology, fitted to `prunex train` runs' metrics.json (calibrate --steps) replayed through
// the engine's plans, and a memory bandwidth from a compaction bench (calibrate --memory).
// The command line (apps/cmd_calibrate.cc) only parses and prints.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/calibration.h"
#include "engine/layer_layout.h"
#include "engine/plan_builder.h"
#include "engine/simulated_masks.h"

namespace prunex::sim {

// A live run given with --steps, read once: its records and the simulator's plan inputs for
// its work (settings/plan_settings.h; hsadmm and hsadmm-rail: with the run's payload masks,
// the masks its inter-node payload was compacted with).
struct StepsRun {
  std::string path;
  nlohmann::json metrics;  // its config in today's spelling (canonical_config)
  ModelLayout layout;
  RecordedMasks masks;  // hsadmm, hsadmm-rail: each iteration's payload mask
  PlanInputs in;        // points into layout and masks
};

// Reads and checks the runs (one world size: the fits scale by ranks per host).
std::vector<std::unique_ptr<StepsRun>> load_steps_runs(const std::vector<std::string>& files);

// Effective FLOP/s of one rank from the slowest rank's local_compute, against the FLOPs one
// rank computes per outer iteration (3 x forward FLOPs per sample, engine/plan_builder.h).
ComputeFit fit_compute(const std::vector<std::unique_ptr<StepsRun>>& runs);

// Per memory phase (and speed key), the plan's bytes over the slowest rank's seconds, the
// median over the runs' iterations (fit_memory_speeds). hsadmm iteration k's plan follows the
// live freezer and compacts with that iteration's payload mask.
std::map<std::string, MemoryFit> fit_memory_phases(
    const std::vector<std::unique_ptr<StepsRun>>& runs);

// Bytes read + written per second of the memcpy row of a `bench --op compaction --json` file.
MemoryFit fit_memory(const std::string& path);

}  // namespace prunex::sim
