// `prunex bench --backend sim`: the nccl-tests table from simulated time on a modeled cluster,
// each row beside its alpha-beta closed form (and, on request, NCCL's own tuning model); or,
// with no ops (--op iteration), one iteration of an engine plan as a scale probe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/strategy.h"
#include "engine/types.h"
#include "netmodel/nccl_model.h"
#include "netmodel/sim_config.h"
#include "topologies/topology.h"

namespace prunex {

struct SimBench {
  Topology topology;
  // The topology as the file states it (signalling rates): NCCL's own model reads link speeds
  // the way NCCL does, from the devices, not the achieved rates `topology` runs at.
  Topology stated;
  sim::SimConfig config;  // config.plan_algo: the collectives' algorithm
  std::vector<CollectiveOp> ops;
  std::vector<Group> groups;
  std::vector<std::size_t> sizes;
  std::string json;
  bool scaled = false;
  bool nccl_model = false;
  sim::NcclProto proto = sim::NcclProto::fastest;
  // --op iteration (no ops): one iteration of the engine's plan on a synthetic model of
  // about `bytes` fp32 bytes, hsadmm's channel keep rate, compute per GPU.
  struct Probe {
    double bytes = 64 << 20;
    double keep = 0.5;
    double flops = 0;
    Strategy strategy = Strategy::hsadmm;
  } probe;
};

// Prints the table (and writes --json); exit status 0.
int run_sim_bench(const SimBench& b);

}  // namespace prunex
