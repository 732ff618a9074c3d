// What `train` runs, in each executable: prunex-train trains (apps/train/run_train.cc);
// prunex, which does not link LibTorch, replaces itself with prunex-train found beside it
// (apps/train_exec.cc), so every other command starts without loading LibTorch.
// `train --check` runs in either without MPI or LibTorch (apps/train_check_main.cc).
#pragma once

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "workloads/train/train_config.h"

namespace prunex::cli {

int train_main(const Args& args);

// The run's settings from --config and the flags (apps/field_options.h), with a warning for
// each chosen setting the strategy does not use; `recorded`: the config file's object (a
// record's facts, checked where the ranks are known). UsageError on a bad setting.
TrainConfig read_train_config(const Args& args, nlohmann::json* recorded = nullptr);

// What a launched train checks on every rank before it loads LibTorch: the settings alone
// (check_train_settings of the options and --config). UsageError on the first problem.
void check_train_args(const Args& args);

// `train --check`: every check a run makes before its first step that needs no ranks
// (workloads/train/train_check.h), a report on stdout, exit 0; or the first problem in one
// line (UsageError, exit 2).
int train_check_main(const Args& args);

}  // namespace prunex::cli
