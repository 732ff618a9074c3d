// `prunex train` on one rank: runs the configured strategy for the configured iterations and
// returns the run's record (complete on world rank 0; other ranks get config only). Rank 0
// prints one progress line per outer iteration.
#pragma once

#include "engine/communicator.h"
#include "records/run_record.h"
#include "workloads/train/train_config.h"

namespace prunex {

RunRecord run_training(const TrainConfig& cfg, Communicator& comm);

}  // namespace prunex
