#include "netmodel/nccl_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/error.h"
#include "netmodel/closed_form.h"

namespace prunex::sim {

namespace {

// Constants of NVIDIA/nccl v2.25.1 src/graph/tuning.cc and src/graph/topo.h. Indices:
// protocol LL, LL128, Simple; generation Volta, Ampere, Hopper, Blackwell; node count 1, 2,
// >= 3 (NCCL's N1/N2/N4).
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr double kBaseLatRing[3] = {6.6, 14.0, 8.4};
constexpr double kBaseLatTree[3] = {6.8, 14.0, 8.4};
// Per-hop hardware latency (us): [hw NVLink, PCIe, network][ring, tree][protocol].
constexpr double kHwLat[3][2][3] = {{{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}},
                                    {{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}},
                                    {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}}};
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
constexpr double kPerChRingLL128[4] = {20.0, 20.0, 36.7, 40.0};
constexpr double kPerChTree[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChTreeLL128[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
// Tree all-reduce bandwidth correction, powers of two from 64 B to 256 MiB.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
constexpr double kNvlinkBw[4] = {20.0, 20.0, 20.6, 40.0};  // SM70, SM80, SM90, SM100 (GB/s)
constexpr double kPciBw = 12.0;                            // PCIe Gen3 x16
// Network post overhead on Intel x86 hosts (us; AMD: 2). Puhti's and DGX H100's CPUs are
// Intel; the topology files do not name the CPU, so Intel is assumed throughout.
constexpr double kNetOverhead = 1.0;

const char* kGenerations[4] = {"Volta", "Ampere", "Hopper", "Blackwell"};

// Compute generation from the GPU name; Ampere when the name says nothing (e.g. a CPU rank).
int generation(const std::string& gpu) {
  if (gpu.find("V100") != std::string::npos) return 0;
  if (gpu.find("H100") != std::string::npos || gpu.find("H200") != std::string::npos) return 2;
  if (gpu.find("B200") != std::string::npos || gpu.find("B100") != std::string::npos) return 3;
  return 1;
}

long log2_down(long n) {
  long r = 0;
  while (n >>= 1) ++r;
  return r;
}

}  // namespace

const char* nccl_proto_name(NcclProto p) {
  switch (p) {
    case NcclProto::ll:
      return "LL";
    case NcclProto::ll128:
      return "LL128";
    case NcclProto::simple:
      return "Simple";
    case NcclProto::fastest:
      return "auto";
  }
  return "?";
}

NcclProto parse_nccl_proto(const std::string& s) {
  for (NcclProto p : {NcclProto::ll, NcclProto::ll128, NcclProto::simple, NcclProto::fastest})
    if (s == nccl_proto_name(p)) return p;
  throw UsageError("--protocol " + s + " is not one of LL, LL128, Simple, auto");
}

double nccl_wire_factor(NcclProto proto) {
  return proto == NcclProto::ll ? 2.0 : proto == NcclProto::ll128 ? 128.0 / 120.0 : 1.0;
}

NcclEstimate nccl_model(const Topology& t, int nodes, int p, CollectiveOp op, Algo algo,
                        Group group, std::size_t bytes, NcclProto proto) {
  NcclEstimate e;
  const int gen = generation(t.gpu.name);
  e.generation = kGenerations[gen];
  // The communicator: its ranks and nodes (intra: one node's p ranks; inter and rail: one
  // rank a node).
  const int n_nodes = group == Group::intra ? 1 : nodes;
  const int ppn = group == Group::world || group == Group::intra ? p : 1;
  const int n = n_nodes * ppn;
  PRUNEX_CHECK(algo != Algo::nccl, "nccl_model scores one algorithm: resolve Algo::nccl first");
  if (n < 2 || algo == Algo::hierarchical || algo == Algo::mpi || op == CollectiveOp::barrier)
    return e;
  if (algo == Algo::tree && op != CollectiveOp::allreduce) return e;  // NCCL: ring only
  const bool nvlink =
      t.intra.kind == IntraKind::nvlink_pairs || t.intra.kind == IntraKind::nvswitch;
  const int intra_hw = nvlink ? 0 : 1;

  // Channels and per-channel bandwidth (GB/s): our layout with NCCL's link speeds.
  const double per_link_Bps = gen == 3 ? 50e9 : 25e9;  // NVLink 5 / NVLink 2-4, per direction
  double intra_ch = kPciBw;
  if (nvlink) {
    const double links = t.intra.kind == IntraKind::nvlink_pairs
                             ? t.intra.links_per_pair
                             : std::max(1.0, std::round(t.intra.link.bandwidth_Bps / per_link_Bps));
    intra_ch = links * kNvlinkBw[gen];
  }
  const double net_ch = t.nic.link.bandwidth_Bps / 1e9;
  int channels = 1;
  double ch_bw = n_nodes == 1 ? intra_ch : net_ch;
  if (n_nodes > 1 && ppn > 1) {
    channels = std::min(std::max(1, t.nic.rails), ppn);
    const int share = world_ring_intra_share(t, ppn);
    ch_bw = std::min(net_ch, intra_ch / std::max(1, share));
  }

  const int nsteps = op == CollectiveOp::allreduce   ? 2 * (n - 1)
                     : op == CollectiveOp::allgather ? n - 1
                                                     : n;
  const int idx2 = n_nodes <= 2 ? n_nodes - 1 : 2;
  const int idx1 = n_nodes == 1 ? gen : 0;  // multi-node: by CPU vendor, Intel assumed
  const double ll_max = kLlMaxBw[idx1][idx2];
  const double nccl_bytes =
      static_cast<double>(bytes) * (op == CollectiveOp::allgather ? n : 1);  // gathered total
  // LL128 is on by default only where the intra-node path is NVLink.
  const bool ll128_ok = nvlink;

  bool have = false;
  for (int pr : {kLL, kLL128, kSimple}) {
    if (proto != NcclProto::fastest && pr != static_cast<int>(proto)) continue;
    if (pr == kLL128 && !ll128_ok && proto == NcclProto::fastest) continue;
    double bus = channels * ch_bw;
    double lat = 0;
    const bool ring = algo == Algo::ring;
    if (ring) {
      if (pr == kLL) bus = std::min(ll_max, bus * 0.5);
      if (pr == kLL128) bus = std::min(bus * 0.92, channels * kPerChRingLL128[gen]);
    } else {
      bus = std::min(bus * 0.92, channels * kPerChTree[gen][idx2]);
      if (pr == kLL) bus = std::min(bus / 3.8, ll_max);
      if (pr == kLL128)
        bus = std::min(bus * (n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                       channels * kPerChTreeLL128[gen][idx2]);
    }
    double alg = ring ? bus * n / nsteps : bus * 0.5;
    const int a = ring ? 0 : 1;
    double intra_lat = kHwLat[intra_hw][a][pr];
    const double inter_lat = ppn == 1 ? kHwLat[2][1][pr] : kHwLat[2][a][pr];  // IB: +0
    if (ring) {
      lat = kBaseLatRing[pr];
      const int hw = n_nodes == 1 ? intra_hw : 2;
      if (op == CollectiveOp::broadcast) {
        // One channel: NCCL's sameChannels (one hop); several: a hop per step, Simple
        // charged the tree's hop.
        lat += channels == 1 ? kHwLat[hw][0][pr] : nsteps * kHwLat[hw][pr == kSimple ? 1 : 0][pr];
      } else {
        if (n_nodes > 1) intra_lat = std::max(intra_lat, kNetOverhead * (pr == kSimple ? 3 : 1));
        const int inter_steps = n_nodes == 1                    ? 0
                                : op == CollectiveOp::allreduce ? 2 * (n_nodes - 1)
                                                                : n_nodes - 1;
        lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
      }
      if (pr == kSimple && n_nodes > 1 && op == CollectiveOp::allreduce &&
          nccl_bytes / (channels * n) >= 64)
        lat *= gen == 0 ? 1.9 : 1.4;  // NCCL: "plateau effect of ring"
    } else {
      lat = kBaseLatTree[pr] + 2 * ((ppn - 1) * intra_lat + log2_down(n_nodes) * inter_lat);
      const long log_size = log2_down(static_cast<long>(nccl_bytes) >> 6);
      if (static_cast<long>(nccl_bytes) >> 6 > 0 && log_size < 23)
        alg *= kTreeCorrection[pr][log_size];
    }
    const double time_us = lat + nccl_bytes / (1000 * alg);
    if (!have || time_us * 1e-6 < e.seconds) {
      have = true;
      e.seconds = time_us * 1e-6;
      e.latency_s = lat * 1e-6;
      e.base_latency_s = (ring ? kBaseLatRing[pr] : kBaseLatTree[pr]) * 1e-6;
      e.algbw_Bps = nccl_bytes / e.seconds;
      e.proto = static_cast<NcclProto>(pr);
    }
  }
  e.modeled = have;
  // nccl-tests bus bandwidth of the predicted time.
  const double factor = op == CollectiveOp::allreduce   ? 2.0 * (n - 1) / n
                        : op == CollectiveOp::allgather ? (n - 1.0) / n
                                                        : 1.0;
  e.busbw_Bps = e.algbw_Bps * factor;
  return e;
}

double nccl_tree_net_hop_extra_s() {
  static_assert(kHwLat[0][1][kLL] == kHwLat[0][0][kLL] && kHwLat[1][1][kLL] == kHwLat[1][0][kLL],
                "NCCL's tree and ring hops inside a node cost the same (LL)");
  return (kHwLat[2][1][kLL] - kHwLat[2][0][kLL]) * 1e-6;
}

Algo nccl_algorithm(const Topology& t, int nodes, int gpus_per_node, CollectiveOp op, Group group,
                    std::size_t bytes) {
  if (op != CollectiveOp::allreduce) return Algo::ring;
  const NcclEstimate ring = nccl_model(t, nodes, gpus_per_node, op, Algo::ring, group, bytes);
  const NcclEstimate tree = nccl_model(t, nodes, gpus_per_node, op, Algo::tree, group, bytes);
  return tree.modeled && (!ring.modeled || tree.seconds < ring.seconds) ? Algo::tree : Algo::ring;
}

}  // namespace prunex::sim
