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
  const int count = host.size();
  std::vector<int> firsts(size), counts(size);
  PRUNEX_MPI_CHECK(MPI_Allgather(&first, 1, MPI_INT, firsts.data(), 1, MPI_INT, world));
  PRUNEX_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, world));
  return ranks_per_host(firsts, counts);
}

}  // namespace

int ranks_per_host(const std::vector<int>& host_first, const std::vector<int>& host_ranks) {
  PRUNEX_CHECK(!host_first.empty() && host_first.size() == host_ranks.size());
  const int per_host = host_ranks[0];
  for (int r = 0; r < static_cast<int>(host_first.size()); ++r) {
    PRUNEX_USAGE(host_ranks[r] == per_host, "hosts hold different numbers of ranks (", per_host,
                 " with rank 0, ", host_ranks[r], " with rank ", r,
                 "); give each host the same number or pass --gpus-per-node");
    PRUNEX_USAGE(host_first[r] == r - r % per_host, "rank ", r, " shares a host with rank ",
                 host_first[r],
                 ": ranks must be placed in consecutive blocks per host (mpirun --map-by "
                 "slot), or pass --gpus-per-node");
  }
  return per_host;
}

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
