#include "netmodel/closed_form.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "netmodel/collectives.h"
#include "netmodel/nccl_model.h"
#include "topologies/fabric_layout.h"

namespace prunex::sim {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Level {
  int n = 1;
  double alpha = 0, bw = 0;
  int channels = 1;
  bool own_links = false;  // a link per rank pair (NVLink pairs), not one port per rank
  // Pipelined rings and chains: the latencies of one channel's ring edges added up, and the
  // smallest latency of an edge into the first rank that some channel's chain leaves out.
  double ring_hops_s = 0, skipped_hop_s = 0;
};

// Sum of node_latency over the ring of nodes 0 -> 1 -> ... -> M-1 -> 0.
double node_ring_latency(const Topology& t, int nodes) {
  double sum = 0;
  for (int k = 0; k < nodes; ++k) sum += node_latency(t, nodes, k, (k + 1) % nodes);
  return sum;
}

// The flat communicator a group forms, with its worst hop.
Level level_of(const Topology& t, int nodes, int p, Group group) {
  const HopCosts h = hop_costs(t, nodes);
  Level l;
  if (group == Group::intra || (group == Group::world && nodes == 1)) {
    l = {p, h.intra_latency_s, h.intra_Bps, 1, t.intra.kind == IntraKind::nvlink_pairs};
    l.ring_hops_s = p * h.intra_latency_s;
    l.skipped_hop_s = h.intra_latency_s;
  } else if (group == Group::inter || p == 1) {
    l = {nodes, h.inter_latency_s, h.inter_Bps, 1};
    l.ring_hops_s = node_ring_latency(t, nodes);
    l.skipped_hop_s = node_latency(t, nodes, nodes - 1, 0);
  } else {
    // World ring over nodes of P GPUs: C channels, one per rail; all channels cross every
    // node (node_channel_paths), intra links shared by world_ring_intra_share channels.
    l.n = nodes * p;
    l.channels = std::min(std::max(1, t.nic.rails), p);
    l.alpha = std::max(h.inter_latency_s, h.intra_latency_s);
    l.bw = world_ring_channel_Bps(t, nodes, p);
    // Each channel: P - 1 intra edges in every node and one edge to the next node. The chain
    // of the channel entering node 0 at rank 0 leaves out the edge from node M-1; any other
    // channel, an intra edge into rank 0.
    l.ring_hops_s = nodes * (p - 1) * h.intra_latency_s + node_ring_latency(t, nodes);
    const double wrap = node_latency(t, nodes, nodes - 1, 0);
    l.skipped_hop_s = l.channels > 1 ? std::min(wrap, h.intra_latency_s) : wrap;
  }
  return l;
}

}  // namespace

int world_ring_intra_share(const Topology& t, int p) {
  const int channels = std::min(std::max(1, t.nic.rails), p);
  if (t.intra.kind == IntraKind::nvlink_pairs && channels > 1) {
    std::vector<int> rails;
    for (int g = 0; g < p; ++g) rails.push_back(rail_of_gpu(g, p, t.nic.rails));
    return node_channel_paths(rails, channels, true).arc_load;
  }
  return std::max(1, channels == p ? channels - 1 : channels);
}

double node_latency(const Topology& t, int nodes, int a, int b) {
  const Fabric& f = t.fabric;
  int switches = 1;
  if (f.kind == FabricKind::fat_tree && f.levels > 1) {
    const int per_leaf = nodes_per_leaf(t);
    const int la = a / per_leaf, lb = b / per_leaf;
    if (la != lb) {
      const int top = std::max(2, fat_tree_top_level(t, (nodes + per_leaf - 1) / per_leaf));
      int h = 2;
      while (h < top && la / fat_tree_subtree_leaves(t, h) != lb / fat_tree_subtree_leaves(t, h))
        ++h;
      switches = 2 * h - 1;
    }
  } else if (f.kind == FabricKind::dragonfly) {
    const int per_group = nodes_per_group(t, nodes);
    if (a / per_group != b / per_group) switches = 2;
  }
  return t.nic.link.latency_s + switches * f.link.latency_s;
}

double world_ring_channel_Bps(const Topology& t, int nodes, int p) {
  const HopCosts h = hop_costs(t, nodes);
  return std::min(h.inter_Bps, h.intra_Bps / world_ring_intra_share(t, p));
}

HopCosts hop_costs(const Topology& t, int nodes) {
  HopCosts h;
  h.intra_latency_s = t.intra.link.latency_s;
  h.intra_Bps = t.intra.link.bandwidth_Bps *
                (t.intra.kind == IntraKind::nvlink_pairs ? t.intra.links_per_pair : 1);
  h.inter_Bps = t.nic.link.bandwidth_Bps;
  // The farthest route: first to last node (one switch hop per switch crossed).
  h.inter_latency_s = node_latency(t, nodes, 0, nodes - 1);
  if (t.fabric.kind == FabricKind::star && t.fabric.link.bandwidth_Bps > 0)
    h.inter_Bps = std::min(h.inter_Bps, t.fabric.link.bandwidth_Bps);
  return h;
}

namespace {

// The load a tree all-reduce puts on one port of n ranks sending S: S (n = 2), 1.5S (n = 3),
// else 2S (inner in one tree: S/2 up + 2 x S/2 down; a leaf in the other: S/2).
double tree_port_load(int n, double s) {
  return n == 2 ? s : n == 3 ? 1.5 * s : 2 * s;
}

// NCCL's tree over M nodes of P GPUs (collectives_tree.cc): C = min(rails, P) channels of
// S/C, each with its chain through the node (node_channel_paths) and its own rail. Latency:
// twice the longest path up a tree, the chain's P - 1 intra hops then node to node (each
// hop + NCCL's tree extra). Bytes: a rail carries the tree port load of S/C; an intra link
// S/C each way per channel whose chain uses it (a switch port: one per neighbour its GPU has
// in each chain).
double nccl_tree_seconds(const Topology& t, int nodes, int p, double s) {
  const HopCosts h = hop_costs(t, nodes);
  const double extra = nccl_tree_net_hop_extra_s();
  const int channels = std::min(std::max(1, t.nic.rails), p);
  double longest = 0;
  for (int tree = 0; tree < 2; ++tree)
    for (int a = 0; a < nodes; ++a) {
      double up = 0;
      for (int x = a; btree_parent(x, nodes, tree) >= 0; x = btree_parent(x, nodes, tree))
        up += node_latency(t, nodes, x, btree_parent(x, nodes, tree)) + extra;
      longest = std::max(longest, up);
    }
  longest += (p - 1) * h.intra_latency_s;
  std::vector<int> rails;
  for (int g = 0; g < p; ++g) rails.push_back(rail_of_gpu(g, p, t.nic.rails));
  const bool pairs = t.intra.kind == IntraKind::nvlink_pairs;
  const auto paths = node_channel_paths(rails, channels, pairs).paths;
  std::vector<int> uses(static_cast<std::size_t>(p) * p, 0);  // [a][b]: chains with a - b
  std::vector<int> neighbours(p, 0);
  for (const auto& path : paths)
    for (int i = 0; i + 1 < p; ++i) {
      ++uses[path[i] * p + path[i + 1]];
      ++uses[path[i + 1] * p + path[i]];
      ++neighbours[path[i]];
      ++neighbours[path[i + 1]];
    }
  const int intra_load = pairs ? *std::max_element(uses.begin(), uses.end())
                               : *std::max_element(neighbours.begin(), neighbours.end());
  const double per_channel = s / channels;
  return 2 * longest + std::max(tree_port_load(nodes, per_channel) / h.inter_Bps,
                                intra_load * per_channel / h.intra_Bps);
}

}  // namespace

double closed_form_seconds(const Topology& t, int nodes, int p, CollectiveOp op, Algo algo,
                           Group group, std::size_t bytes) {
  if (algo == Algo::mpi) return kNaN;  // a round per step: no one formula (collectives_mpi.cc)
  const double s = static_cast<double>(bytes);
  if (algo == Algo::hierarchical && group == Group::world) {
    const HopCosts h = hop_costs(t, nodes);
    const double intra = (p - 1) * h.intra_latency_s + (p > 1 ? s / h.intra_Bps : 0.0);
    const int m = nodes;
    // The leaders' ring and chain (one channel) over nodes 0 -> ... -> M-1 (-> 0).
    if (op == CollectiveOp::allreduce)
      return 2 * intra + (m > 1 ? 2.0 * (m - 1) / m * node_ring_latency(t, m) +
                                      2.0 * (m - 1) / m * s / h.inter_Bps
                                : 0);
    if (op == CollectiveOp::broadcast)
      return intra +
             (m > 1 ? node_ring_latency(t, m) - node_latency(t, m, m - 1, 0) + s / h.inter_Bps : 0);
    return kNaN;
  }
  const Level l = level_of(t, nodes, p, group);
  const int n = l.n;
  if (n < 2) return 0;
  const double depth = std::ceil(std::log2(n));
  // Double binary tree (collectives_tree.cc), every edge S/2 each way in each tree. One port
  // per rank: a rank inner in one tree (parent + 2 children) and a leaf in the other sends
  // 4 x S/2 = 2S; n = 3 has no inner rank with two children (degrees 2 + 1: 1.5S), n = 2 one
  // edge per tree (S). A link per pair: the two trees share at least one edge for every
  // n >= 2 (checked by enumeration up to 64), so some link carries 2 x S/2 = S each way.
  const double reduce_load = l.own_links ? s : tree_port_load(n, s);
  // Broadcast down tree 0: S to each child; the most children of a rank is 1 for n <= 3, 2
  // beyond; a link per pair gives each child its own.
  const double bcast_load = l.own_links || n <= 3 ? s : 2 * s;
  const bool tree_ok = group != Group::world || p == 1 || nodes == 1;
  // An all-reduce tree's hops between nodes cost NCCL's tree hop (nccl_model.h).
  const bool inside = group == Group::intra || nodes == 1;
  const double tree_hop = l.alpha + (inside ? 0.0 : nccl_tree_net_hop_extra_s());
  switch (op) {
    case CollectiveOp::allreduce:
      if (algo == Algo::tree)
        return tree_ok ? 2 * depth * tree_hop + reduce_load / l.bw
                       : nccl_tree_seconds(t, nodes, p, s);
      return 2.0 * (n - 1) / n * l.ring_hops_s + 2.0 * (n - 1) / n * (s / l.channels) / l.bw;
    case CollectiveOp::allgather:
      return algo == Algo::tree ? kNaN
                                : (n - 1.0) / n * l.ring_hops_s + (n - 1) * s / l.channels / l.bw;
    case CollectiveOp::broadcast:
      if (algo == Algo::tree) return tree_ok ? depth * l.alpha + bcast_load / l.bw : kNaN;
      return l.ring_hops_s - l.skipped_hop_s + s / l.channels / l.bw;
    case CollectiveOp::alltoall:  // one step; each member's port sends n - 1 blocks
      return algo == Algo::tree ? kNaN : l.alpha + (l.own_links ? s : (n - 1) * s) / l.bw;
    case CollectiveOp::barrier:  // no payload; not modeled
    case CollectiveOp::send:
    case CollectiveOp::recv:
      return 0;
  }
  return kNaN;
}

double expected_total_bytes(CollectiveOp op, Algo algo, Group group, int nodes, int p,
                            std::size_t bytes) {
  const double s = static_cast<double>(bytes);
  if (algo == Algo::mpi) {  // what the chosen algorithm's steps send
    double total = 0;
    const RankLayout layout{nodes, p};
    for (const auto& round : build_schedule(op, algo, group, layout, s))
      for (const auto& f : round.flows) total += f.bytes;
    return total;
  }
  if (algo == Algo::hierarchical && group == Group::world) {
    const double m = nodes, n = static_cast<double>(nodes) * p;
    switch (op) {
      case CollectiveOp::allreduce:
        return 2 * m * (p - 1) * s + 2 * (m - 1) * s;
      case CollectiveOp::allgather:  // gather, leaders' ring of P blocks, chain of n blocks
        return m * (p - 1) * s + m * (m - 1) * p * s + m * (p - 1) * n * s;
      case CollectiveOp::broadcast:
        return (m - 1) * s + m * (p - 1) * s;
      case CollectiveOp::alltoall:  // not hierarchical: the flat all-to-all below
        break;
      case CollectiveOp::barrier:
      case CollectiveOp::send:
      case CollectiveOp::recv:
        return 0;
    }
  }
  // Every communicator of the group, each over k ranks.
  const int comms = group == Group::intra ? nodes : 1;
  const double k = group == Group::intra ? p : group == Group::inter ? nodes : nodes * p;
  // Ring all-reduce moves 2(k-1)/k S over k edges; the double tree S/2 each way over k-1
  // edges of two trees: both 2(k-1)S. All-gather (k-1) blocks over k edges; broadcasts S
  // over k-1 edges (tree: S to each of k-1 children).
  switch (op) {
    case CollectiveOp::allreduce:
      return comms * 2 * (k - 1) * s;
    case CollectiveOp::allgather:
      return comms * k * (k - 1) * s;
    case CollectiveOp::broadcast:
      return comms * (k - 1) * s;
    case CollectiveOp::alltoall:
      return comms * k * (k - 1) * s;
    case CollectiveOp::barrier:
    case CollectiveOp::send:
    case CollectiveOp::recv:
      return 0;
  }
  return 0;
}

}  // namespace prunex::sim
