// The console line that names what a simulation assumes beyond what the user typed: the
// workload's shape, the collectives' algorithm and platform settings, the model mechanisms
// and their values, and any what-if (issue: a default that changes an answer must be seen).
#pragma once

#include <string>

#include "simulate/simulate_config.h"

namespace prunex::sim {

// "assumes: CIFAR-10's shape (32 x 32 x 3, 10 classes, 50000 samples), batch 128 per GPU,
// fp32; collectives: ring, achieved bandwidths, NCCL's base latency per call; mechanisms:
// interference 1.76, DDP overhead 26.4 passes, sync skew 0.0185; what-if: none"
std::string assumptions_line(const SimulateConfig& cfg);

}  // namespace prunex::sim
