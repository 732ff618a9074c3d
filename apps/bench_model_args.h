// The options the model-based benches (compaction on the CPU, pack/unpack on the GPU) share:
// the model's layout, its sparsity spec, and the iteration counts.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/cli.h"
#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"

namespace prunex::cli {

struct ModelBenchArgs {
  ModelLayout layout;
  SparsitySpec spec;
  long iters = 20, warmup = 5;
};

// --model, --classes, --sparsity, --keep, -n, -w; bad values are UsageErrors.
ModelBenchArgs parse_model_bench_args(const Args& args);

// Deterministic pseudo-random fill in [-1, 1): the same seed gives the same weights, and so
// the same masks, in the CPU and GPU benches. Fast enough for 10^8 floats.
void fill_random(std::vector<float>& v, uint64_t seed);

// The compaction benches' closing line on traffic in whole sectors: pack reads z and v in
// whole sectors (2 * kept_sector_bytes) and writes the compact stream; unpack reads the
// stream and writes every element. Prints that traffic over the measured times and its
// ratio to the copy's rate.
void print_sector_traffic(const ModelLayout& layout, const ModelMask& mask, double compact_bytes,
                          double dense_bytes, double both_us, double copy_gbs);

}  // namespace prunex::cli
