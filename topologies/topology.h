// A cluster description: what topology files (topologies/presets/*.json) hold once loaded
// and validated. Units are SI: bytes per second, seconds, FLOP/s. Every number may carry a
// source string (sources[key]) that says where it came from.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace prunex {

struct LinkSpec {
  double bandwidth_Bps = 0;  // per direction
  double latency_s = 0;
};

struct GpuType {
  std::string name;
  double fp32_flops = 0;  // peak
  double fp16_flops = 0;  // peak (tensor cores where present)
  double mem_bandwidth_Bps = 0;
  // Sustained training throughput as a fraction of fp32 peak (a calibration value).
  double efficiency = 0.5;
  // Optional (0: not stated): the TF32 tensor-core peak (A100 and later), and the sustained
  // training throughput as a fraction of the TF32 peak and of the fp16 peak under automatic
  // mixed precision (simulate --precision tf32 | amp; apply_precision in topology_io.h).
  double tf32_flops = 0;
  double tf32_efficiency = 0;
  double amp_efficiency = 0;
  double effective_flops() const { return fp32_flops * efficiency; }
};

// The arithmetic a run's compute uses (simulate --precision): fp32; TF32 tensor cores for the
// matrix products (fp32 storage); AMP, fp16 tensor-core math with fp32 master weights (the
// gradients travel as the strategy sends them: ddp fp32, as PyTorch's AMP does, fp16 halved).
enum class Precision { fp32, tf32, amp };

// How the GPUs of one node are connected.
enum class IntraKind {
  nvlink_pairs,  // every GPU pair has links_per_pair direct links of `link` each
  nvswitch,      // every GPU has one port of `link` into a non-blocking switch
  pcie,          // every GPU has one port of `link` into a shared PCIe switch
  loopback,      // ranks on one host (the localhost preset)
};

struct IntraNode {
  IntraKind kind = IntraKind::nvswitch;
  LinkSpec link;           // one link (nvlink_pairs) or one port (switch kinds)
  int links_per_pair = 1;  // nvlink_pairs only
  int links_per_gpu = 0;   // nvlink_pairs: NVLink ports per GPU if stated (0 = not stated)
  // nvlink_pairs, optional: the NVLink count between each GPU pair (nvidia-smi topo -m's NV#,
  // 0 where the pair has none: DGX-1's hybrid cube mesh). When stated, links_per_pair is
  // derived from it: the most links every hop of one ring through all GPUs can have
  // (ring_links()), what a ring channel NCCL builds over NVLink gets; the simulator gives
  // every pair that many (its rings are faithful, direct traffic between unlinked pairs is not).
  std::vector<std::vector<int>> links;
  // The share of `link`'s signalling bandwidth that transfers achieve (protocol headers,
  // flow control: NVLink moves about 20 of 25 GB/s), from a published microbenchmark; 1 when
  // the file states none. Applied by achieved_bandwidths() (topology_io.h).
  double achieved = 1;
};

struct NicSpec {
  int rails = 1;  // NICs per node, each `link`
  LinkSpec link;
  // As IntraNode::achieved, for the NICs and the fabric's switch links (same technology):
  // an EDR port moves about 12.2 of 12.5 GB/s, a TCP socket far less than its line rate.
  double achieved = 1;
  // Optional: per NIC, the GPUs next to it (nvidia-smi topo -m: PIX, else PXB, PHB, NODE).
  // Validated against rail_of_gpu() (topologies/fabric_layout.h), the placement the
  // simulator uses: consecutive GPUs share a rail.
  std::vector<std::vector<int>> affinity;
};

enum class FabricKind { star, fat_tree, dragonfly };

struct Fabric {
  FabricKind kind = FabricKind::fat_tree;
  int levels = 2;                   // fat_tree
  int radix = 40;                   // switch ports (fat_tree), routers per group (dragonfly)
  double blocking = 1.0;            // 1 = non-blocking, 2 = 2:1 oversubscribed uplinks
  LinkSpec link;                    // switch-to-switch links
  int groups = 1;                   // dragonfly
  int global_links_per_router = 1;  // dragonfly
};

struct Topology {
  std::string name;
  std::string description;
  int nodes = 1;  // nodes the cluster has (a run may use fewer)
  int gpus_per_node = 1;
  GpuType gpu;
  IntraNode intra;
  NicSpec nic;
  Fabric fabric;
  // Keyed by the file's dotted field path: "gpu.fp32_tflops" -> "NVIDIA V100 datasheet", ...
  // (free text, carried into results).
  std::map<std::string, std::string> sources;

  // The source of a field ("not stated" when the file gives none).
  std::string source_of(const std::string& key) const {
    const auto it = sources.find(key);
    return it != sources.end() ? it->second : "not stated";
  }
  int gpus() const { return nodes * gpus_per_node; }
  // Per-direction injection bandwidth of one node into the fabric.
  double node_injection_Bps() const { return nic.rails * nic.link.bandwidth_Bps; }
  // A switch-to-switch (fat tree) or global (dragonfly) link; the NIC's speed when a
  // topology built in code leaves it unset (files must state it).
  double fabric_link_Bps() const {
    return fabric.link.bandwidth_Bps > 0 ? fabric.link.bandwidth_Bps : nic.link.bandwidth_Bps;
  }
};

}  // namespace prunex
