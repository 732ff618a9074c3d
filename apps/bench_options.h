// `prunex bench`'s options: one option set (cmd_bench.cc), read into the config of the bench
// mode it selects (bench/). Bad values are UsageErrors naming the option.
#pragma once

#include <string>

#include "apps/cli.h"
#include "bench/collective_bench.h"
#include "bench/model_bench.h"
#include "bench/sim_bench.h"

namespace prunex::cli {

// --backend mpi|nccl: --op, --group, -b -e -f, --gpus-per-node, -n -w, --json, the
// measurement mode (--sync, --stat, --busy-us, --evict).
CollectiveBenchConfig parse_collective_bench(const Args& args, const std::string& backend);
// --op compaction: --model, --classes, --sparsity, --keep, -n, -w, --json.
ModelBenchConfig parse_model_bench(const Args& args);
// --backend sim: the cluster, its model and calibration, the collectives or the probe.
SimBench parse_sim_bench(const Args& args);

// The live modes (bench_mpi.cc, bench_nccl.cc): start the communicator, run, report.
int run_mpi_bench(const Args& args);
int run_nccl_bench(const Args& args);  // CUDA builds only

}  // namespace prunex::cli
