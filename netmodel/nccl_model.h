// NCCL's own cost model (NVIDIA/nccl src/graph/tuning.cc, v2.25.1, the version the PruneX
// paper used), written out from its constants so `prunex bench --backend sim --compare
// nccl-model` can print NCCL's prediction beside ours. Nothing here includes SimGrid.
//
//   time_us = latency(algo, proto) + bytes / (1000 x algBw(algo, proto))     (bytes in B)
//   busBw   = channels x per-channel bandwidth, refined per protocol:
//             ring LL    min(llMax, busBw / 2)
//             ring LL128 min(0.92 busBw, channels x 20 GB/s (36.7 on Hopper))
//             tree       min(0.92 busBw, channels x perChMaxTree); LL: min(busBw / 3.8,
//                        llMax); LL128: min(busBw x (7/9 on one node, else 120/128),
//                        channels x perChMaxTreeLL128)
//   algBw   = busBw x n / nsteps (ring; nsteps 2(n-1) all-reduce, n-1 all-gather, n
//             broadcast), busBw / 2 (tree), tree x the size correction table
//   latency = base + (nsteps - inter steps) x intra hop + inter steps x net hop (ring),
//             base + 2((ppn - 1) intra + log2(nodes) net) (tree all-reduce); ring Simple
//             all-reduce over nodes x 1.9 before Ampere (1.4 after) once each rank's
//             share per channel is >= 64 B
//
// NCCL also searches the machine for its channels; that search is not reproduced. The
// channels and their bandwidth come from our own layout (node_channel_paths, rails) with
// NCCL's link speeds: 20 GB/s per NVLink (Volta, Ampere; 20.6 Hopper, 40 Blackwell), the
// count of NVLinks from the topology's NVLink bandwidth at 25 GB/s per link per direction
// (NVLink 2-4; 50 for NVLink 5), 12 GB/s PCIe Gen3, the NIC's own speed. NCCL picks the
// fastest enabled protocol per size (LL128 only on NVLink nodes); `proto` can force one.
#pragma once

#include <cstddef>
#include <string>

#include "netmodel/sim_config.h"

namespace prunex::sim {

enum class NcclProto { ll, ll128, simple, fastest };
const char* nccl_proto_name(NcclProto p);
NcclProto parse_nccl_proto(const std::string& s);  // LL, LL128, Simple, auto; else UsageError

struct NcclEstimate {
  bool modeled = false;  // false: NCCL has no such algorithm (e.g. tree all-gather)
  double seconds = 0;
  double latency_s = 0;
  // The part of latency_s every call pays whatever its hops: tuning.cc's baseLat of the
  // algorithm and protocol (ring LL 6.6, LL128 14, Simple 8.4 us; tree 6.8, 14, 8.4).
  double base_latency_s = 0;
  double algbw_Bps = 0, busbw_Bps = 0;
  NcclProto proto = NcclProto::simple;
  std::string generation;  // Volta, Ampere, Hopper, Blackwell (from gpu.name)
};

// The protocol's bytes on the wire per byte of data (LL: 8-byte lines carrying 4 bytes of data
// and a flag, 2; LL128: 128-byte lines carrying 120, 128/120; Simple 1).
double nccl_wire_factor(NcclProto proto);

// `bytes` as bench gives it: per rank for all-reduce and broadcast, one rank's block for
// all-gather (NCCL counts the gathered total). algo: ring or tree (hierarchical: modeled =
// false).
NcclEstimate nccl_model(const Topology& t, int nodes, int gpus_per_node, CollectiveOp op, Algo algo,
                        Group group, std::size_t bytes, NcclProto proto = NcclProto::fastest);

// What a hop of NCCL's tree between nodes costs beyond a hop of its ring, which the
// topologies' network latencies are (tuning.cc's hardware latencies, LL protocol): 5.0 - 2.7
// = 2.3 us. Inside a node the two are equal (NVLink 0.6 us, PCIe 1.0 us).
double nccl_tree_net_hop_extra_s();

// The algorithm NCCL picks for a collective (Algo::nccl): tree where its model predicts the
// tree all-reduce faster than the ring (each at its fastest protocol), else ring; NCCL has
// rings only for the other ops.
Algo nccl_algorithm(const Topology& t, int nodes, int gpus_per_node, CollectiveOp op, Group group,
                    std::size_t bytes);

}  // namespace prunex::sim
