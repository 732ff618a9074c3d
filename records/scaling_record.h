// scaling.json, what `prunex sweep` writes: per strategy its points (GPUs, nodes, time per
// epoch and iteration, speedup and efficiency against the strategy's smallest size; with
// failures modeled, the failure-free run and its expected time), and the sweep's config. A
// SLURM array's per-point outputs (`sweep --point I`) merge into the same document.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace prunex {

struct ScalingPoint {
  std::string strategy;
  int gpus = 0, nodes = 0;
  double epoch_s = 0, iteration_s = 0;
  // With --mtbf-hours: the run failure-free and its expected time with failures (else 0).
  double run_s = 0, expected_s = 0;
  // The collectives' exposed share of the time (simulate_run.h).
  double communication_share = 0;
  // The time's error band (simulate/error_band.h: level, low, high, rows, ...); null: none.
  nlohmann::json time_band = nullptr;
  long index = -1;      // the point's place in its sweep (strategies x sizes in order)
  std::string missing;  // why the point has no time (its process died, ...); empty: it ran
};

// Speedup and efficiency of p against the smallest size of its strategy among the points that
// ran.
struct ScalingGain {
  double speedup = 1;
  double efficiency = 1;
};
ScalingGain scaling_gain(const std::vector<ScalingPoint>& points, const ScalingPoint& p);

// The document: {strategy: [point, ...], "config": config}, and, when points failed,
// "missing": [{point, strategy, gpus, nodes, why}, ...].
nlohmann::json scaling_json(const std::vector<ScalingPoint>& points, const nlohmann::json& config);

// The points of a scaling.json (its strategies' lists; index and missing as recorded, missing
// ones with their why). UsageError naming `origin` when a point is malformed.
std::vector<ScalingPoint> read_scaling_points(const nlohmann::json& doc, const std::string& origin);

// --merge DIR: the per-point outputs (DIR/*/scaling.json of `--point I` runs) as one sweep, in
// point order, one entry per point of the sweep: a point with no output in DIR comes back with
// its index and `missing` said (its strategy and size are the caller's to fill from the
// config). `config` gets their common config (its out aside). UsageError when one is there
// twice or from another sweep.
std::vector<ScalingPoint> merge_scaling_points(const std::string& dir, nlohmann::json& config);

}  // namespace prunex
