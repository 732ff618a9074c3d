// A calibration from the times an implementation took (not from benches): each given
// collective (op, group, nodes x GPUs per node, bytes, seconds) becomes the one fit of its
// op and group, so that the simulator prices that collective at exactly the given time on the
// topology, and every other size of it at the same rate. `prunex reproduce` builds its second
// reading this way: the PruneX paper's implementation, at the per-phase rates its Figs. 7-8
// imply (analysis/paper_comparison.h: paper_transfers).
//
// Per fit (one size range): latency_s = the tier's route latency on the topology (intra: the
// GPU-to-GPU link's, else node to node: the NIC's and one switch's), charged per latency
// step of the ring's schedule as calibrated ops are (sim_cluster.cc); bandwidth_Bps such that
// the ring's bytes at that rate take the rest of the time:
//
//   B = link x T_bw / (seconds - steps x latency_s)
//
// where T_bw is the closed form's bandwidth term on the topology (closed_form_seconds with
// every latency 0) and link the group's per-hop link (op_costs' bytes scale = link / B), so
// B / link is the share of the hardware's rate the implementation achieved.
#pragma once

#include <string>
#include <vector>

#include "calibration/calibration.h"
#include "topologies/topology.h"

namespace prunex::sim {

struct TargetTime {
  std::string what;  // e.g. "H-SADMM inter-node all-reduce (leaders)"
  CollectiveOp op = CollectiveOp::allreduce;
  Group group = Group::world;
  int nodes = 1, gpus_per_node = 1;
  double bytes = 0;  // per rank as simulate gives the collective (all-gather: one block)
  double seconds = 0;
};

struct RateFit {
  TargetTime target;
  TierFit fit;
  double link_Bps = 0;  // the group's per-hop link on the topology
  double efficiency() const { return fit.bandwidth_Bps / link_Bps; }
};

// One fit per target (ring algorithm; UsageError when two targets name one op and group, or a
// target's time is not above its latency steps). `input` names where the times come from
// (the calibration's inputs). `fits` (optional) receives each target's fit.
Calibration calibration_from_times(const Topology& t, const std::vector<TargetTime>& targets,
                                   const std::string& input, std::vector<RateFit>* fits = nullptr);

// The route latency of a group's ring hop on t (the link: group_link_Bps, calibration.h).
double group_latency_s(const Topology& t, Group group);

}  // namespace prunex::sim
