// Alpha-beta closed forms of the simulated collectives, from the topology numbers alone (no
// SimGrid): what an uncongested platform should give. The bench prints the simulated time's
// relative error against them. NaN where no simple closed form is stated (hierarchical
// all-gather; a tree broadcast over several GPUs per node on the world group, whose ranks
// share NICs).
//
//   ring all-reduce   2(n-1)/n H + 2(n-1)/n (S/C) / B    C channels (rails), B per channel,
//                                                        H = one channel's ring edges'
//                                                        latencies added up (pipelined)
//   tree all-reduce   2 d a + L / B                      d = ceil(log2 n), a the largest hop
//                                                        + NCCL's tree extra (nccl_model.h);
//                                                        one port per rank: L = S (n = 2),
//                                                        1.5S (n = 3), 2S; a link per pair
//                                                        (NVLink): L = S
//   NCCL's tree       2 [(P-1) a_i + max path up] +      over M nodes of P > 1 GPUs: chains in
//                     max(L(S/C) / B_x, k S/C / B_i)     the nodes, the tree over the nodes;
//                                                        k = chains on the busiest intra link
//   hierarchical      2 [(P-1) a_i + S/B_i] + 2(M-1)/M H_x + 2(M-1)/M S/B_x
//   ring all-gather   (n-1)/n H + (n-1) b / C / B        b = one rank's block
//   chain broadcast   H - h0 + S / C / B                 h0 = the ring edge into the root
//                                                        that the longest chain leaves out
//   tree broadcast    d a + L' / B                       L' = S (n <= 3 or a link per
//                                                        pair), else 2S (two children)
//   hierarchical bc.  H_x - h_x + S/B_x + (P-1) a_i + S/B_i
//
// Between nodes a hop costs node_latency (the NIC plus one fabric hop per switch crossed).
#pragma once

#include <cstddef>

#include "netmodel/sim_config.h"

namespace prunex::sim {

struct HopCosts {
  double intra_latency_s = 0, intra_Bps = 0;  // GPU to GPU inside a node
  double inter_latency_s = 0, inter_Bps = 0;  // node to node (the farthest pair), per rail
};
HopCosts hop_costs(const Topology& t, int nodes);

// Route latency from node a to node b (a != b) of a run on `nodes` nodes: the NIC plus one
// fabric hop per switch crossed (topologies/README.md).
double node_latency(const Topology& t, int nodes, int a, int b);

// Channels of the world ring over nodes of P GPUs that share the busiest intra-node link: a
// switch port carries every channel but the one its GPU leaves (port up) or enters (port
// down) by, C - 1 when C = P, else C; a pair link carries the layout's arc load.
int world_ring_intra_share(const Topology& t, int gpus_per_node);

// B of the world ring over nodes of P GPUs: per channel, the slower of a NIC rail and an
// intra link's share (the channels the layout puts on one port or pair link).
double world_ring_channel_Bps(const Topology& t, int nodes, int gpus_per_node);

double closed_form_seconds(const Topology& t, int nodes, int gpus_per_node, CollectiveOp op,
                           Algo algo, Group group, std::size_t bytes);

// Bytes all flows of the collective carry in total (what the simulator must deliver).
double expected_total_bytes(CollectiveOp op, Algo algo, Group group, int nodes, int gpus_per_node,
                            std::size_t bytes);

}  // namespace prunex::sim
