#include "backends/nccl/nccl_grouping.h"

#include "backends/mpi/mpi_env.h"
#include "engine/error.h"

namespace prunex {

int nccl_checked_rank(MPI_Comm world, const NodeGrouping& grouping) {
  int rank = 0, size = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_rank(world, &rank));
  PRUNEX_MPI_CHECK(MPI_Comm_size(world, &size));
  PRUNEX_USAGE(grouping.gpus_per_node >= 1, "--gpus-per-node must be at least 1");
  PRUNEX_USAGE(size == grouping.world_size, "world size ", size, " does not match ",
               grouping.world_size, " = nodes x GPUs per node");
  PRUNEX_USAGE(size % grouping.gpus_per_node == 0, "world size ", size,
               " is not a multiple of --gpus-per-node ", grouping.gpus_per_node);
  return rank;
}

int nccl_select_device(MPI_Comm world) {
  const int devices = cuda_device_count();
  if (devices == 0) throw CudaError("no CUDA device: " + cuda_unavailable_reason());
  // Index among the ranks sharing this host, whatever the launcher's rank order.
  MPI_Comm host = MPI_COMM_NULL;
  PRUNEX_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  int host_rank = 0;
  const int rc = MPI_Comm_rank(host, &host_rank);
  MPI_Comm_free(&host);
  PRUNEX_MPI_CHECK(rc);
  const int device = host_rank % devices;
  PRUNEX_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

NcclGroups nccl_split_groups(MPI_Comm world, const NodeGrouping& grouping, int rank) {
  ncclUniqueId id;
  if (rank == 0) PRUNEX_NCCL_CHECK(ncclGetUniqueId(&id));
  PRUNEX_MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, world));
  NcclGroups g;
  ncclComm_t c = nullptr;
  PRUNEX_NCCL_CHECK(ncclCommInitRank(&c, grouping.world_size, id, rank));
  g.world = NcclComm(c);
  // The splits are collective over the world communicator: every rank calls each.
  auto split = [&](int color, int key) {
    ncclComm_t out = nullptr;
    PRUNEX_NCCL_CHECK(ncclCommSplit(g.world.get(), color, key, &out, nullptr));
    return NcclComm(out);
  };
  g.intra = split(grouping.node_of(rank), grouping.local_rank(rank));
  g.inter = split(grouping.is_leader(rank) ? 0 : NCCL_SPLIT_NOCOLOR, grouping.node_of(rank));
  g.rail = split(grouping.local_rank(rank), grouping.node_of(rank));
  return g;
}

}  // namespace prunex
