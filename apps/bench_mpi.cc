// `prunex bench --backend mpi`: the collective benchmark (bench/collective_bench.h) on a live
// MPI job: all-reduce, broadcast and all-gather on the world, intra-node and inter-node-leader
// groups, every result checked, the nccl-tests table. Run it under mpirun; only rank 0 prints
// and writes --json.
#include <fmt/core.h>
#include <cstdio>

#include "apps/bench_options.h"
#include "backends/mpi/mpi_communicator.h"
#include "engine/error.h"

namespace prunex::cli {

int run_mpi_bench(const Args& args) {
  MpiEnv env;
  CollectiveBenchConfig cfg;
  std::unique_ptr<MpiCommunicator> comm;
  try {
    cfg = parse_collective_bench(args, "mpi");
    comm = make_mpi_communicator(cfg.gpus_per_node);
  } catch (const UsageError& e) {
    // Every rank reaches the same verdict: rank 0 reports it once, and all ranks exit 2 after
    // MPI_Finalize. Printing here, before finalising, means the line is out before any rank
    // exits and mpirun starts tearing the job down.
    if (env.world_rank() == 0) fmt::print(stderr, "prunex bench: error: {}\n", e.what());
    return 2;
  }
  std::vector<BenchRow> rows;
  try {
    rows = run_collective_bench(*comm, host_space(), cfg);
  } catch (const std::exception& e) {
    // A failure on one rank would leave the others blocked in a collective: end them all.
    fmt::print(stderr, "prunex bench: rank {} failed: {}\n", comm->world_rank(), e.what());
    comm->abort(1);
  }
  return finish_collective_bench(*comm, rows, cfg);
}

}  // namespace prunex::cli
