// Builds a SimGrid 3.32 platform in code from a Topology and a run shape. Internal to
// backends/simgrid (it includes SimGrid); users go through sim_cluster.h.
#pragma once

#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/simgrid/sim_cluster.h"
#include "topologies/fabric_layout.h"
#include "topologies/topology.h"

namespace prunex::sim {

namespace sg4 = simgrid::s4u;

// How much of the cluster a run uses.
struct RunShape {
  int nodes = 1;
  int gpus_per_node = 1;
  int world() const { return nodes * gpus_per_node; }
};

struct Platform {
  std::vector<sg4::Host*> gpus;  // indexed by world rank (node-major)
  sg4::NetZone* fabric_root = nullptr;
  // Link latencies kept out of SimGrid (see build_platform), per one-way link.
  bool latency_in_simgrid = true;
  std::unordered_map<const sg4::Link*, double> latency;
  // Sum of latencies on the route src -> dst (SimGrid's and the kept-out ones).
  double route_latency(int src, int dst) const;
  std::vector<sg4::Link*> route_links(int src, int dst) const;
};

// A split-duplex link of `zone` with bandwidth bw and latency lat per direction (in SimGrid
// or in p.latency, as p.latency_in_simgrid says); UsageError for bw <= 0.
sg4::SplitDuplexLink* duplex(Platform& p, sg4::NetZone* zone, const std::string& name, double bw,
                             double lat);
// The network, CPU, disk and host models of one zone given to another (a zone built
// detached has none).
void copy_models(const sg4::NetZone* from, sg4::NetZone* to);

// Requires a live sg4::Engine; creates and seals every zone under a new root zone.
// latency_in_simgrid = false gives SimGrid zero-latency links and keeps the latencies in
// Platform::latency: CM02 weights a flow's bandwidth share by its route latency (TCP RTT
// fairness), which RDMA and NVLink fabrics don't have; the executor adds the latencies.
Platform build_platform(const Topology& t, const RunShape& shape, bool latency_in_simgrid);

// The same platform with per-flow ECMP over each fat-tree leaf's uplinks (platform_ecmp.cc).
Platform build_ecmp_platform(const Topology& t, const RunShape& shape, bool latency_in_simgrid,
                             std::uint64_t seed);
// The uplink (0..paths-1) a flow from GPU src to GPU dst (world ranks) takes under `seed`, and
// how many uplinks a leaf has (nodes per leaf x rails / blocking).
std::uint64_t ecmp_path(std::uint64_t seed, int src, int dst, int paths);
int ecmp_uplinks_per_leaf(const Topology& t);

}  // namespace prunex::sim
