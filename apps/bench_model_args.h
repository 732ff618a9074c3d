// The options the model-based benches (compaction on the CPU, pack/unpack on the GPU) share:
// the model's layout, its sparsity spec, and the iteration counts.
#pragma once

#include "apps/cli.h"
#include "engine/layer_layout.h"
#include "engine/sparsity_spec.h"

namespace prunex::cli {

struct ModelBenchArgs {
  ModelLayout layout;
  SparsitySpec spec;
  long iters = 20, warmup = 5;
};

// --model, --classes, --sparsity, --keep, -n, -w; bad values are UsageErrors.
ModelBenchArgs parse_model_bench_args(const Args& args);

}  // namespace prunex::cli
