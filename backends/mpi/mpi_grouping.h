// How ranks form nodes under MPI: emulated (a fixed number of consecutive ranks per node) or
// real (the ranks sharing a host).
#pragma once

#include <mpi.h>

#include <vector>

#include "engine/communicator.h"

namespace prunex {

// gpus_per_node > 0: consecutive blocks of that many ranks; a world size that is not a
// multiple is a UsageError. gpus_per_node == 0: ranks sharing a host (MPI_COMM_TYPE_SHARED);
// every host must hold the same number of ranks in one consecutive block, else UsageError.
// Collective over world; every rank reaches the same verdict (it is computed from gathered
// data), so a UsageError is thrown on all ranks together and nobody is left waiting.
NodeGrouping mpi_node_grouping(MPI_Comm world, int gpus_per_node);

// The check behind real-host grouping, on gathered data: for each world rank r,
// host_first[r] is the lowest world rank on r's host and host_ranks[r] how many ranks that
// host holds. Returns the ranks per host; UsageError unless every host holds the same number
// of ranks as one consecutive block.
int ranks_per_host(const std::vector<int>& host_first, const std::vector<int>& host_ranks);

}  // namespace prunex
