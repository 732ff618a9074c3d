// One rank's share of a training checkpoint (records/checkpoint.h holds the file format):
// the model's parameters and buffers, the optimiser's momentum, the data loader's position
// and generator, LibTorch's default generator, and the strategy's own state
// (LiveStrategy::save_state: H-SADMM's consensus, Top-K's residuals). Everything is stored
// as bytes, so a resumed run continues bit for bit.
#pragma once

#include "engine/state_sections.h"
#include "records/checkpoint.h"
#include "records/run_record.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/train_setup.h"

namespace prunex {

StateSections save_rank_state(const TrainSetup& s, const LiveStrategy& strategy);
// Restores into a freshly built setup and strategy of the same config; a section that is
// missing or of the wrong size is a UsageError naming it.
void load_rank_state(TrainSetup& s, LiveStrategy& strategy, const StateSections& sections);

// --resume DIR, before any work: the newest complete checkpoint, refused (UsageError, the same
// on every rank) when it comes from another world size or grouping, or from other settings or
// leaves nothing to run (check_resume_settings, train_check.h).
CheckpointManifest open_resume(const TrainConfig& cfg, const nlohmann::json& config, int world_size,
                               int gpus_per_node);
// Every rank reads and checks its own file and restores it; when any rank's file is bad
// (truncated, checksum), every rank throws the same UsageError naming that file.
void restore_checkpoint(const CheckpointManifest& m, TrainSetup& s, LiveStrategy& strategy,
                        Communicator& comm);
// pactrain --init DIR: the model (parameters and buffers) of rank 0 in the newest checkpoint
// of a `train --strategy ddp` run of the same model and classes (ddp keeps every rank's model
// equal; open_init_checkpoint); UsageError naming what does not match. Returns the
// checkpoint's iteration.
int load_init_model(TrainSetup& s);

// After outer iteration k: every rank writes its file, rank 0 the manifest (config, grouping,
// `run` so far, `extra`) and LATEST. A failure to write is a runtime_error (the job ends).
void write_checkpoint(const std::string& dir, int k, const RunRecord& run,
                      const nlohmann::json& extra, const TrainSetup& s,
                      const LiveStrategy& strategy, Communicator& comm);

}  // namespace prunex
