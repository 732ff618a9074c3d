// What the model-based benches (compaction on the CPU, pack/unpack on the GPU) share: the
// model's layout, its sparsity spec, the iteration counts, the JSON output; and their inputs
// and closing line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"

namespace prunex {

struct ModelBenchConfig {
  ModelLayout layout;
  SparsitySpec spec;
  long iters = 20, warmup = 5;
  std::string json;  // rows and ratios written here (empty: none)
};

// `prunex bench --op compaction`: pack + unpack on the CPU against memcpy (compaction_bench.cc);
// with --device cuda the GPU kernels against a device copy (compaction_bench_cuda.cc, CUDA
// builds). Exit status: 1 when an element came back wrong.
int run_compaction_bench(const ModelBenchConfig& cfg);
int run_compaction_cuda_bench(const ModelBenchConfig& cfg);

// Deterministic pseudo-random fill in [-1, 1): the same seed gives the same weights, and so
// the same masks, in the CPU and GPU benches. Fast enough for 10^8 floats.
void fill_random(std::vector<float>& v, uint64_t seed);

// The compaction benches' closing line on traffic in whole units of `unit` bytes (the GPU's
// 32-byte sectors, the CPU's 64-byte cache lines): pack reads z and v in whole units
// (2 * kept_sector_bytes) and writes the compact stream; unpack reads the stream and writes
// every element. Prints that traffic over the measured times and returns its ratio to the
// copy's rate.
double print_sector_traffic(const ModelLayout& layout, const ModelMask& mask, double compact_bytes,
                            double dense_bytes, double both_us, double copy_gbs, int unit,
                            const char* unit_name);

}  // namespace prunex
