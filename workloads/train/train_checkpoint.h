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
// missing or of the wrong size is a UsageError naming it. saved_world: 0 when the sections
// are this rank's own (the same shape); else the world size of the run that wrote them (rank
// 0's, a resume on another shape): the data position is carried over as the fraction of the
// epoch done, the data augmentation's generator stays this rank's, and the strategy restarts
// its per-rank state (LiveStrategy::restart_rank_state).
void load_rank_state(TrainSetup& s, LiveStrategy& strategy, const StateSections& sections,
                     int saved_world = 0);

// --resume DIR, before any work: the newest complete checkpoint, refused (UsageError, the same
// on every rank) when it comes from other settings or leaves nothing to run
// (check_resume_settings, train_check.h). Another world size or grouping is a resume on
// another shape (restore_checkpoint).
CheckpointManifest open_resume(const TrainConfig& cfg, const nlohmann::json& config);
// Whether the checkpoint was written by a run of this world size and grouping.
bool same_shape(const CheckpointManifest& m, const NodeGrouping& g);
// The same shape: every rank reads and checks its own file and restores it. Another shape
// (docs/training.md, "Resuming on another shape"): every rank restores rank 0's file, and the
// state that was each rank's own restarts. When a file is bad (truncated, checksum), every
// rank throws the same UsageError naming it.
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
