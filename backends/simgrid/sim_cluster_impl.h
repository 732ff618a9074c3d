// SimCluster's private state, shared by its .cc files (includes SimGrid: internal only).
#pragma once

#include <memory>
#include <unordered_map>

#include "backends/simgrid/platform.h"
#include "backends/simgrid/sim_cluster.h"

namespace prunex::sim {

struct SimCluster::Impl {
  Topology topology;
  SimConfig config;
  std::unique_ptr<sg4::Engine> engine;
  Platform platform;
  std::unordered_map<long long, double> latency_cache;
  // Bytes each link carried since run_plan began (run_flows adds every flow on its route).
  std::unordered_map<const sg4::Link*, double> link_bytes;

  double route_latency(int src, int dst) {
    const long long key = static_cast<long long>(src) * platform.gpus.size() + dst;
    auto it = latency_cache.find(key);
    if (it != latency_cache.end()) return it->second;
    return latency_cache[key] = platform.route_latency(src, dst);
  }
};

}  // namespace prunex::sim
