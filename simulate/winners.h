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
#include "settings/config_fields.h"
#include "simulate/sweep.h"

namespace prunex::sim {

// What `prunex winners` takes: a sweep's settings (each NIC's speed excepted) and the NIC
// bandwidths, one sweep each. Its fields: the sweep's but --nic-gbits, and --bandwidths; a
// winners.json's `config` reruns it.
struct WinnersConfig {
  SweepConfig sweep;
  std::vector<double> bandwidths = {10, 25, 100, 200};  // Gbit/s, ascending
  WinnersConfig() { sweep.out = "out/winners"; }
};
const std::vector<ConfigField<WinnersConfig>>& winners_fields();

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

// Where the ratio t_ddp / t_hsadmm crosses 1 between two bandwidths of the grid, each crossing
// interpolated in log bandwidth. `pays`: "everywhere" or "nowhere" on the grid, "below" the
// one crossing (faster at the low end: its one synchronisation per epoch against ddp's per
// step), "above" it (ddp faster at the low end: e.g. its ring over every rail against the
// leaders' one NIC each), or "between" (several crossings, in `crossings_gbits`).
struct Crossover {
  int gpus = 0;
  std::string pays;
  std::vector<double> crossings_gbits;
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
