// Collectives as flows. A schedule is a list of sequential phases; a phase is a set of flows
// started together plus a count of latency terms. Simulated time of a phase:
//
//   T_phase = latency_steps x alpha_max + max over flows (flow time - its route latency)
//
// where alpha_max is the largest route latency among the phase's flows. A pipelined
// algorithm of k steps sends one flow per edge carrying the bytes of all its steps (so
// concurrent edges share links exactly as the steps would) and pays its k latency terms
// exactly; on uncongested platforms this equals the alpha-beta closed form (closed_form.h).
// Nothing here includes SimGrid.
#pragma once

#include <vector>

#include "backends/simgrid/sim_cluster.h"
#include "engine/communicator.h"

namespace prunex::sim {

struct Phase {
  std::vector<Flow> flows;
  int latency_steps = 0;
};
using Schedule = std::vector<Phase>;

struct RankLayout {
  int nodes = 1;
  int gpus_per_node = 1;
  int rails = 1;
  int world() const { return nodes * gpus_per_node; }
  NodeGrouping grouping() const { return {world(), gpus_per_node}; }
};

// The communicators a group forms (NodeGrouping::groups): world = one, intra = one per node,
// inter = the leaders.
std::vector<std::vector<int>> group_members(Group g, const RankLayout& layout);

// NCCL-style ring channels over `members` (sorted world ranks): when the ring spans nodes
// with m > 1 members each and the node has R > 1 rails, min(R, m) channels; channel k enters
// every node at its first member on the k-th distinct rail of the node's members, so each
// channel's inter-node edges use their own NICs. Otherwise one channel in rank order.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& members,
                                            const RankLayout& layout);

// Parent of member index r in NCCL's double binary tree `tree` (0 or 1) over n members;
// -1 for the root.
int btree_parent(int r, int n, int tree);
int btree_depth(int n, int tree);

Schedule ring_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes);
Schedule tree_allreduce(const std::vector<int>& members, double bytes);
Schedule hierarchical_allreduce(const RankLayout& layout, double bytes);
Schedule ring_allgather(const std::vector<int>& members, const RankLayout& layout, double block);
Schedule hierarchical_allgather(const RankLayout& layout, double block);
Schedule chain_broadcast(const std::vector<int>& members, const RankLayout& layout, double bytes);
Schedule tree_broadcast(const std::vector<int>& members, double bytes);
Schedule hierarchical_broadcast(const RankLayout& layout, double bytes);

// The schedule of a collective on a group: every communicator of the group runs at once
// (phase i of each merged into one phase). Throws UsageError for unsupported combinations.
Schedule build_schedule(CollectiveOp op, Algo algo, Group group, const RankLayout& layout,
                        double bytes);

}  // namespace prunex::sim
