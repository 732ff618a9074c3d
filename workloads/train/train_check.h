// What a training run checks before its first step that needs neither ranks nor LibTorch:
// the settings, the model's layer table, the data files, the output folders and the
// checkpoint a run starts from. The trainer calls these pieces before it loads anything;
// `prunex train --check` calls them all, in the executable without LibTorch, so a batch
// script can refuse a typo on the batch host before it starts any rank.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "records/checkpoint.h"
#include "records/output_dir.h"
#include "workloads/data/dataset_spec.h"
#include "workloads/train/train_config.h"

namespace prunex {

// The data set the run trains on: the named set's spec, with the synthetic set's size, image
// side and classes from the settings.
DatasetSpec train_data_spec(const TrainConfig& cfg);

// The data set's classes must fit the model's outputs (--classes); UsageError otherwise.
void check_data_classes(const TrainConfig& cfg, int data_classes);

// Loaded images (`split`: "training" or "test") must have the shape the model is built for;
// UsageError naming the folder and both shapes otherwise.
void check_data_shape(const TrainConfig& cfg, const DatasetSpec& spec, const char* split,
                      int64_t channels, int64_t height, int64_t width);

// --out, and --checkpoint-dir when checkpoints are on and it is another folder: checked and
// claimed (records/output_dir.h) for as long as the object lives.
struct TrainOutputs {
  std::unique_ptr<OutputDir> out, checkpoint_dir;
};
TrainOutputs claim_train_outputs(const TrainConfig& cfg);

// --resume: the settings that change what the run computes (the keys of `config` other than
// iterations, out, the checkpoint flags, --inject-failure, gpus-per-node and data-dir) must be
// the checkpoint's, its run must not have ended, and --iterations must leave something to run.
// The world size and grouping are checked where the ranks are known (open_resume).
void check_resume_settings(const TrainConfig& cfg, const nlohmann::json& config,
                           const CheckpointManifest& m);

// pactrain --init DIR: the newest checkpoint there, of a `train --strategy ddp` run of the
// same model and classes; UsageError naming what does not match.
CheckpointManifest open_init_checkpoint(const TrainConfig& cfg);

// What `prunex train --check` found: enough for a one-paragraph report.
struct TrainCheck {
  DatasetSpec data;
  int64_t train_samples = 0, test_samples = 0;  // as the run uses them (--train-samples ...)
  int64_t parameters = 0;
  size_t layers = 0;
  std::optional<CheckpointManifest> resume, init;
};

// The checks the settings alone decide, the same on every rank and without side effects:
// check_train_config, the model's layer table for the data set's images and classes, and
// --resume's manifest against the settings (check_resume_settings). `prunex train` makes them
// on every rank before it starts prunex-train, so a typo costs no rank a LibTorch start
// (apps/train_exec.cc); check_train_inputs makes them first. Returns what they read: the
// data set's spec, the model's size and --resume's manifest.
TrainCheck check_train_settings(const TrainConfig& cfg);

// Every check above, in the trainer's order (settings and the checkpoint's settings, output
// folders, data, the checkpoint's rank files, --init), with the data files read
// whole as training reads them (labels and sizes included), the output folders claimed until
// the check ends (a folder the check created is removed again), and the rank files present
// at their recorded sizes (--init: rank 0's, the one the run reads). UsageError at the first
// problem, worded as the launched run words it. Not checked here: the ranks (world size,
// nodes, the checkpoint's grouping), GPUs, memory and the rank files' checksums, which only
// the launched run sees.
TrainCheck check_train_inputs(const TrainConfig& cfg);

}  // namespace prunex
