// The prunex runs `prunex reproduce` makes (apps/cmd_reproduce.cc runs them, each in its own
// process): the simulations behind Figs. 6-9 and their projection, and reading 2, Fig. 9's
// sweeps at the paper's implied rates with the calibration they take.
#pragma once

#include <string>
#include <vector>

#include "analysis/reproduction.h"

namespace prunex::cli {

// The simulations of reading 1: Fig. 9's sweeps, Figs. 6-8's 64-GPU runs, the projection.
std::vector<Step> simulation_steps(const ReproduceOptions& o);

// Reading 2: Fig. 9's sweeps at the paper's rates (run once write_paper_rates has written
// the calibrations).
std::vector<Step> paper_rates_steps(const ReproduceOptions& o);

// Writes reading 2's calibration (the paper's times of Figs. 7-8 on our 16 x 4 runs' bytes,
// calibration/rate_calibration.h) and returns its rates. Every world collective runs at
// DDP's rate: Top-K's all-gather too (the paper states no time for it).
std::vector<PaperRate> write_paper_rates(const ReproduceOptions& o, bool ddp_per_epoch);

}  // namespace prunex::cli
