#include "backends/mpi/mpi_grouping.h"

#include <vector>

#include "backends/mpi/mpi_env.h"
#include "engine/error.h"

namespace prunex {
namespace {

// Ranks per host, checked to be equal blocks of consecutive ranks.
int host_ranks_per_node(MPI_Comm world) {
  int rank = 0, size = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_rank(world, &rank));
  PRUNEX_MPI_CHECK(MPI_Comm_size(world, &size));
  MpiComm host = MpiComm::split_shared(world);
  // Each rank learns the world rank of its host's first rank and how many ranks the host has.
  int first = rank;
  PRUNEX_MPI_CHECK(MPI_Bcast(&first, 1, MPI_INT, 0, host.get()));
  const int mine[2] = {first, host.size()};
  std::vector<int> all(2 * static_cast<std::size_t>(size));
  PRUNEX_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, world));
  const int per_host = all[1];
  for (int r = 0; r < size; ++r) {
    const int r_first = all[2 * r], r_count = all[2 * r + 1];
    PRUNEX_USAGE(r_count == per_host, "hosts hold different numbers of ranks (", per_host,
                 " with rank 0, ", r_count, " with rank ", r,
                 "); give each host the same number or pass --gpus-per-node");
    PRUNEX_USAGE(r_first == r - r % per_host, "rank ", r, " shares a host with rank ", r_first,
                 ": ranks must be placed in consecutive blocks per host (mpirun --map-by "
                 "slot), or pass --gpus-per-node");
  }
  return per_host;
}

}  // namespace

NodeGrouping mpi_node_grouping(MPI_Comm world, int gpus_per_node) {
  PRUNEX_USAGE(gpus_per_node >= 0, "--gpus-per-node must be positive, got ", gpus_per_node);
  int size = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_size(world, &size));
  NodeGrouping g;
  g.world_size = size;
  g.gpus_per_node = gpus_per_node > 0 ? gpus_per_node : host_ranks_per_node(world);
  PRUNEX_USAGE(size % g.gpus_per_node == 0, "world size ", size,
               " is not a multiple of --gpus-per-node ", g.gpus_per_node);
  return g;
}

}  // namespace prunex
