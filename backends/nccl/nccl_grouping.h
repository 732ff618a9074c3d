// How ranks form NCCL communicators, as backends/mpi/mpi_grouping.h does for MPI: the checks
// of the world against the node grouping, the GPU each rank drives, and the four groups of
// the hierarchy split from one world communicator (bootstrapped through MPI).
#pragma once

#include <mpi.h>

#include "backends/nccl/nccl_env.h"
#include "engine/communicator.h"

namespace prunex {

// This rank's world rank; UsageError when MPI's world size does not equal grouping.world_size
// or is not a multiple of gpus_per_node.
int nccl_checked_rank(MPI_Comm world, const NodeGrouping& grouping);

// GPU (index among the ranks sharing this host) % (visible GPUs), made current; no device is a
// CudaError naming the reason.
int nccl_select_device(MPI_Comm world);

struct NcclGroups {
  NcclComm world, intra, inter, rail;  // inter: none on non-leaders
};
// Rank 0 calls ncclGetUniqueId, MPI broadcasts it, every rank joins the world; ncclCommSplit
// then gives intra (color = node, key = local rank), inter (the leaders, key = node) and rail
// (color = local rank, key = node). Collective over world.
NcclGroups nccl_split_groups(MPI_Comm world, const NodeGrouping& grouping, int world_rank);

}  // namespace prunex
