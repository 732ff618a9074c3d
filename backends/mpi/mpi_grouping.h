// How ranks form nodes under MPI: emulated (a fixed number of consecutive ranks per node) or
// real (the ranks sharing a host).
#pragma once

#include <mpi.h>

#include "engine/communicator.h"

namespace prunex {

// gpus_per_node > 0: consecutive blocks of that many ranks; a world size that is not a
// multiple is a UsageError. gpus_per_node == 0: ranks sharing a host (MPI_COMM_TYPE_SHARED);
// every host must hold the same number of ranks in one consecutive block, else UsageError.
// Collective over world; every rank reaches the same verdict (it is computed from gathered
// data), so a UsageError is thrown on all ranks together and nobody is left waiting.
NodeGrouping mpi_node_grouping(MPI_Comm world, int gpus_per_node);

}  // namespace prunex
