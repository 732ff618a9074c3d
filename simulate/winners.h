// `prunex winners` without its command line: which strategy is fastest per epoch at each
// (GPU count, NIC bandwidth) of a grid, by how much, with each time's error band, and the
// bandwidth below which H-SADMM beats DDP at each size. The simulations are a sweep's (one
// per strategy and size, --nic-gbits set to each bandwidth of the grid); this file reads
// their rows.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/scaling_record.h"

namespace prunex::sim {

// One simulated point of the grid: a sweep row at one bandwidth.
struct GridPoint {
  double nic_gbits = 0;
  ScalingPoint row;
};

// A strategy's measured accuracy, from a live run's metrics.json (its last iteration's).
struct MeasuredAccuracy {
  std::string strategy, run;
  double accuracy = 0;  // fraction
};
// Reads a `prunex train` metrics.json; UsageError naming the file when it is not one or has
// no accuracy.
MeasuredAccuracy read_measured_accuracy(const std::string& path);

// Where the ratio t_ddp / t_hsadmm (falling with bandwidth) crosses 1 between two bandwidths
// of the grid, interpolated in log bandwidth; below it H-SADMM is faster. `pays` tells the
// grid's edges apart: "everywhere" (faster at every bandwidth), "nowhere", or "below".
struct Crossover {
  int gpus = 0;
  std::string pays;
  double below_gbits = 0;  // when pays == "below"
};
// ratios[i] = t_ddp / t_hsadmm at gbits[i], gbits ascending.
Crossover crossover(int gpus, const std::vector<double>& gbits, const std::vector<double>& ratios);

// winners.json: the grid, per cell the strategies' times and bands, the winner, the runner-up
// and the margin (runner-up's time / winner's), a one-line verdict (with the accuracy cost
// against ddp where measured), and the crossovers.
nlohmann::json winners_json(const std::vector<GridPoint>& points,
                            const std::vector<MeasuredAccuracy>& accuracy,
                            const nlohmann::json& config);

}  // namespace prunex::sim
