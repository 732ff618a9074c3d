// `prunex train` on one rank: runs the configured strategy for the configured iterations and
// returns the run's record (complete on world rank 0; other ranks get config only). Rank 0
// prints one progress line per outer iteration.
#pragma once

#include <functional>

#include "engine/communicator.h"
#include "records/run_record.h"
#include "workloads/train/train_backend.h"
#include "workloads/train/train_config.h"

namespace prunex {

// on_iteration (rank 0 only): called with the record so far after every outer iteration
// (cmd_train writes metrics.json there, so a killed run keeps what it measured).
// backend: what moves what, and the device (train_backend.h).
RunRecord run_training(const TrainConfig& cfg, const TrainBackend& backend,
                       const std::function<void(const RunRecord&)>& on_iteration = {});
// Everything on one host communicator (--backend mpi).
inline RunRecord run_training(const TrainConfig& cfg, Communicator& comm,
                              const std::function<void(const RunRecord&)>& on_iteration = {}) {
  return run_training(cfg, TrainBackend::host(comm), on_iteration);
}

}  // namespace prunex
