// The PruneX platform for SimGrid's own SMPI: the topology and run shape come from the
// environment, so smpirun can load the same platform `prunex bench --backend sim` builds.
//   PRUNEX_TOPOLOGY        preset name or JSON file (default puhti)
//   PRUNEX_NODES           nodes in the run (default: the topology's; more scales it out)
//   PRUNEX_GPUS_PER_NODE   GPUs (= MPI ranks) per node (default: the topology's)
// Built outside CMake by scripts/studies/bench_smpi.sh (a benchmark, not part of the product).
#pragma once

#include "backends/simgrid/platform.h"

namespace prunex::sim::smpi {

// Loads the topology, applies the shape exactly as apps/bench_options.cc does (scale_to_nodes
// when PRUNEX_NODES exceeds the topology) and builds the platform with the link latencies
// inside SimGrid (SMPI has no executor that adds them). Needs a live engine.
Platform build_platform_from_env();

}  // namespace prunex::sim::smpi
