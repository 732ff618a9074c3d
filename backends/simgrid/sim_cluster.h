// A modeled cluster on SimGrid: collectives, compute and whole iteration plans in simulated
// time. No SimGrid header leaks out of this one (pimpl).
//
// SimGrid 3.32 allows one Engine per process, so one SimCluster per process: build it once,
// then run as many collectives / plans on it as needed (they run one after another on the
// same clock). To simulate several platforms, fork (simulate/fork_run.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "netmodel/sim_config.h"

namespace prunex::sim {

struct Round;  // netmodel/collectives.h

class SimCluster {
 public:
  SimCluster(const Topology& topology, const SimConfig& config);
  ~SimCluster();
  SimCluster(const SimCluster&) = delete;
  SimCluster& operator=(const SimCluster&) = delete;

  int world_size() const;
  const SimConfig& config() const;
  const Topology& topology() const;

  // Flows started together; per-flow timings (contention among them is simulated). With
  // align_transfers, a flow with a shorter route starts later by the difference, so that
  // every flow's transfer begins at the same instant (start + the largest route latency):
  // collectives account latency terms separately and share bandwidth from a common start.
  std::vector<FlowTiming> run_flows(const std::vector<Flow>& flows, bool align_transfers = false);
  // A collective of `bytes` per rank (allgather: each rank's block) on `group`: intra runs
  // on every node at once, inter on the node leaders. Returns simulated seconds.
  // warm: the collective follows other communication (SimConfig::op_costs_warm).
  CollectiveResult run_collective(CollectiveOp op, Algo algo, Group group, std::size_t bytes,
                                  bool warm = false);
  // Every rank computes `flops` / runs over `mem_bytes` at the GPU's effective speed (memory:
  // the phase's calibrated speed where SimConfig::memory_Bps has one).
  double run_compute(double flops);
  // The same, each rank's own time (SimConfig::compute_factor: a straggler takes longer; the
  // step ends when the slowest rank's does), plus `fixed_s` seconds that are no FLOPs (a
  // framework's per-step cost, PlanStep::fixed_s), times the rank's factor too.
  std::vector<double> run_compute_ranks(double flops, double fixed_s = 0);
  double run_memory(double mem_bytes, const std::string& phase = std::string(),
                    const std::string& key = std::string());
  PlanTiming run_plan(const IterationPlan& plan);

  // "CM02 (crosstraffic off)" etc.: goes into every result.
  std::string model_description() const;

 private:
  double round_latency(const Round& round, double alpha, const SimConfig::OpCost* cost,
                       bool nccl_latency, int gpus_per_node);
  void run_batch(const std::vector<Flow>& flows, const std::vector<std::size_t>& batch,
                 double align_latency, std::vector<FlowTiming>& out);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prunex::sim
