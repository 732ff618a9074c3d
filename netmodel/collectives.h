// Collectives as flows. A schedule is a list of sequential rounds; a round is a set of flows
// started together plus its latency. Simulated time of a round:
//
//   T_round = latency + max over flows (flow time - its route latency)
//
// A pipelined algorithm of k steps sends one flow per edge carrying the bytes of all its steps
// (so concurrent edges share links exactly as the steps would). Its latency is the hops a
// piece of data crosses one after another, each at its own route latency: a ring of n ranks
// 2(n-1) hops in all-reduce, n-1 in all-gather, weighted as 2(n-1)/n and (n-1)/n of the sum
// over the ring's edges; a chain its n-1 edges. Trees and one-step rounds pay latency_steps x
// the largest route latency. On uncongested platforms this equals the closed form
// (closed_form.h). Nothing here includes SimGrid.
#pragma once

#include <utility>
#include <vector>

#include "engine/communicator.h"
#include "netmodel/sim_config.h"

namespace prunex::sim {

struct Round {
  std::vector<Flow> flows;
  int latency_steps = 0;
  // When set: latency = chain_weight x the largest, over chains (one per channel and
  // communicator), sum of its hops' route latencies; latency_steps then counts the hops
  // (calibrated per-op costs charge latency_steps x their latency).
  std::vector<std::vector<std::pair<int, int>>> latency_chains;
  double chain_weight = 1;
  // The hops between nodes of the latency (steps or chains) cost NCCL's tree hop, not the
  // ring hop the topologies carry: the simulator adds nccl_tree_net_hop_extra_s to each.
  bool nccl_tree_hops = false;
};
using Schedule = std::vector<Round>;

struct RankLayout {
  int nodes = 1;
  int gpus_per_node = 1;
  int rails = 1;
  bool pair_links = false;  // a link per GPU pair (NVLink pairs), not a port per GPU
  // Rails one node-to-node path stands for (a calibration pools a node's rails into one path):
  // Open MPI's TCP transport sends a message's first eager-limit bytes on one rail and
  // stripes the rest over all, so on the pooled path the eager part costs x pooled_rails
  // (--algo mpi only).
  int pooled_rails = 1;
  int world() const { return nodes * gpus_per_node; }
  NodeGrouping grouping() const { return {world(), gpus_per_node}; }
};

// The communicators a group forms (NodeGrouping::groups): world = one, intra = one per node,
// inter = the leaders.
std::vector<std::vector<int>> group_members(Group g, const RankLayout& layout);

// Channel paths through one node's m ring members (`rails`: each member's NIC rail): path k
// is an order of the member indices 0..m-1, entering at its first and leaving the node at its
// last. Channel k enters at the first member on the k-th distinct rail; the exits are
// distinct members whose rails are the entries' rails, so every NIC carries as many channels
// out as in. With a link per GPU pair, the layout found has the fewest channels per directed
// pair link (NCCL's ring search picks distinct NVLinks per channel): arc-disjoint for every
// m <= 8 and C <= m except C = m = 3 and 5, where 2 (no such path decomposition exists).
// With switch ports the channels are rotations of the member order (any order loads the
// ports alike). arc_load: the most channels on one directed member-to-member arc.
struct NodeChannelPaths {
  std::vector<std::vector<int>> paths;
  int arc_load = 0;
};
NodeChannelPaths node_channel_paths(const std::vector<int>& rails, int channels, bool pair_links);

// `members` (sorted world ranks) grouped by node, in order; whole_nodes: more than one node,
// each holding the same count of members, more than one.
std::vector<std::vector<int>> members_by_node(const std::vector<int>& members, int gpus_per_node);
bool whole_nodes(const std::vector<std::vector<int>>& per_node);
// Each node's members in the order of channel k's path through the node
// (node_channel_paths on the members' rails): [node][k].
std::vector<std::vector<std::vector<int>>> node_channel_orders(
    const std::vector<std::vector<int>>& per_node, const RankLayout& layout, int channels);

// NCCL-style ring channels over `members` (sorted world ranks): when the ring spans nodes
// with m > 1 members each and the node has R > 1 rails, min(R, m) channels, laid out in
// every node by node_channel_paths, so each channel's inter-node edges use their own NICs.
// Otherwise one channel in rank order.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& members,
                                            const RankLayout& layout);

// Parent of member index r in NCCL's double binary tree `tree` (0 or 1) over n members;
// -1 for the root.
int btree_parent(int r, int n, int tree);
int btree_depth(int n, int tree);

Schedule ring_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes);
// The double binary tree over the members; over whole nodes of several members each, NCCL's
// tree: a chain in every node, the double binary tree over the nodes (collectives_tree.cc).
Schedule tree_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes);
Schedule hierarchical_allreduce(const RankLayout& layout, double bytes);
Schedule ring_allgather(const std::vector<int>& members, const RankLayout& layout, double block);
Schedule hierarchical_allgather(const RankLayout& layout, double block);
Schedule chain_broadcast(const std::vector<int>& members, const RankLayout& layout, double bytes);
Schedule tree_broadcast(const std::vector<int>& members, double bytes);
// Every member sends `bytes` straight to every other member, all at once (one step).
Schedule direct_alltoall(const std::vector<int>& members, double bytes);
Schedule hierarchical_broadcast(const RankLayout& layout, double bytes);

// Open MPI's algorithms (collectives_mpi.cc): the one Open MPI 4.1's coll/tuned picks for an
// op on n ranks and `bytes` (all-gather: one rank's block), and its schedule, one round per
// step (latency terms: one per step, two more for a rendezvous above the eager limit, one for
// the ranks' arrival skew in recursive doubling).
enum class MpiAlg {
  recursive_doubling,
  ring,
  rabenseifner,
  reduce_bcast,
  bruck,
  neighbor,
  linear,
  chain,
  binary,
  binomial,
  knomial,
  scatter_allgather
};
const char* mpi_alg_name(MpiAlg a);
MpiAlg ompi_choice(CollectiveOp op, int n, double bytes);
Schedule mpi_schedule(CollectiveOp op, const std::vector<int>& members, const RankLayout& layout,
                      double bytes);

// A schedule on uniform links (one latency L, one bandwidth B per resource, one NIC path per
// node): time = latency_terms x L + bytes / B, where bytes adds up each round's busiest
// resource (a node's NIC in one direction, a GPU's intra port, a pair link). What calibrate
// fits --algo mpi rows with.
struct ScheduleLoad {
  double latency_terms = 0;
  double bytes = 0;
};
ScheduleLoad schedule_load(const Schedule& s, const RankLayout& layout);

// The schedule of a collective on a group: every communicator of the group runs at once
// (round i of each merged into one). Throws UsageError for unsupported combinations.
Schedule build_schedule(CollectiveOp op, Algo algo, Group group, const RankLayout& layout,
                        double bytes);

}  // namespace prunex::sim
