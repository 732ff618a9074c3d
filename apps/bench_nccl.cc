// `prunex bench --backend nccl`: the collective benchmark (bench/collective_bench.h) on NCCL,
// one GPU per rank, buffers in device memory; the same ops, groups, checks and table as
// --backend mpi. Launched like it (mpirun / srun; MPI bootstraps NCCL). Without a CUDA
// device: exit 2 with one line, before MPI starts.
#if defined(PRUNEX_HAVE_NCCL)

#include <fmt/core.h>
#include <cstdio>

#include "apps/bench_options.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/device_space.h"
#include "backends/mpi/mpi_env.h"
#include "backends/mpi/mpi_grouping.h"
#include "backends/nccl/nccl_communicator.h"
#include "engine/error.h"

namespace prunex::cli {

int run_nccl_bench(const Args& args) {
  if (cuda_device_count() == 0)
    throw UsageError("no CUDA device: " + cuda_unavailable_reason() +
                     " (prunex bench --backend nccl needs a GPU per rank)");
  MpiEnv env;
  CollectiveBenchConfig cfg;
  std::unique_ptr<NcclCommunicator> comm;
  try {
    cfg = parse_collective_bench(args, "nccl");
    comm = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD,
                                              mpi_node_grouping(MPI_COMM_WORLD, cfg.gpus_per_node));
  } catch (const UsageError& e) {
    if (env.world_rank() == 0) fmt::print(stderr, "prunex bench: error: {}\n", e.what());
    return 2;
  }
  std::vector<BenchRow> rows;
  try {
    const auto mem = make_device_space();
    rows = run_collective_bench(*comm, *mem, cfg);
  } catch (const std::exception& e) {
    fmt::print(stderr, "prunex bench: rank {} failed: {}\n", comm->world_rank(), e.what());
    comm->abort(1);
  }
  return finish_collective_bench(*comm, rows, cfg);
}

}  // namespace prunex::cli

#endif  // PRUNEX_HAVE_NCCL
