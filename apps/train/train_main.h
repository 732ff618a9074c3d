// What `train` runs, in each executable: prunex-train trains (apps/train/run_train.cc);
// prunex, which does not link LibTorch, replaces itself with prunex-train found beside it
// (apps/train_exec.cc), so every other command starts without loading LibTorch.
#pragma once

#include "apps/cli.h"

namespace prunex::cli {

int train_main(const Args& args);

}  // namespace prunex::cli
