// What `train` runs, in each executable: prunex-train trains (apps/train/run_train.cc);
// prunex, which does not link LibTorch, replaces itself with prunex-train found beside it
// (apps/train_exec.cc), so every other command starts without loading LibTorch.
// `train --check` runs in either without MPI or LibTorch (apps/train_check.cc).
#pragma once

#include "apps/cli.h"

namespace prunex::cli {

int train_main(const Args& args);

// `train --check`: every check a run makes before its first step that needs no ranks
// (workloads/train/train_check.h), a report on stdout, exit 0; or the first problem in one
// line (UsageError, exit 2).
int train_check_main(const Args& args);

}  // namespace prunex::cli
