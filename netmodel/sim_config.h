// The network model's vocabulary, apart from any simulator: the algorithms a collective may
// run, how flows cross a fat tree, what a simulated run is configured with (SimConfig), and
// what flows, collectives and plans report. The schedules (netmodel/collectives.h), the closed
// forms, NCCL's model and the calibration fits speak it; the SimGrid executor
// (backends/simgrid/sim_cluster.h) carries it out. Nothing here includes SimGrid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/types.h"
#include "topologies/topology.h"

namespace prunex::sim {

// mpi: the algorithms Open MPI 4.1 picks itself (collectives_mpi.cc), as live MPI runs use.
// nccl: ring or tree per collective, whichever NCCL's own tuning model (nccl_model.h) predicts
// faster for its op, size and communicator, as NCCL picks; SimCluster::run_collective resolves
// it before building a schedule.
enum class Algo { ring, tree, hierarchical, mpi, nccl };
Algo parse_algo(const std::string& name);  // UsageError on unknown
const char* algo_name(Algo a);
// Whether algorithm a has a schedule for op: every one but the tree's all-gather (NCCL has no
// tree all-gather). The one rule the schedules, bench and simulate's up-front check share.
bool algo_runs(Algo a, CollectiveOp op);
CollectiveOp parse_op(const std::string& name);
// How flows cross a fat tree's leaf uplinks: pooled (default: every flow leaving a leaf
// shares its whole uplink bundle, max-min) or ecmp (each flow hashed onto one uplink, seeded;
// backends/simgrid/platform_ecmp.cc). Pooled is the default because it is the expected case
// of a fabric whose routing spreads collective traffic evenly (InfiniBand's static
// destination routing, adaptive routing); ecmp shows what hash collisions on an
// Ethernet/RoCE fabric cost.
enum class FabricRouting { pooled, ecmp };
FabricRouting parse_fabric_routing(const std::string& name);  // UsageError on unknown
const char* fabric_routing_name(FabricRouting r);
// UsageError unless the routing applies to the topology (ecmp: a fat tree of 2+ levels).
void check_fabric_routing(const Topology& t, FabricRouting routing);
// SimGrid network models a SimConfig may name: CM02, LV08, SMPI, IB.
const std::set<std::string>& known_network_models();

struct SimConfig {
  int nodes = 1;
  int gpus_per_node = 1;
  // SimGrid network model: CM02 (default: an uncongested transfer takes exactly
  // latency + size / bandwidth once cross-traffic is off), LV08, SMPI, IB.
  std::string network_model = "CM02";
  bool crosstraffic = false;
  // CM02 divides a link among flows in inverse proportion to their route latency (TCP RTT
  // fairness). Off (default): links have zero latency inside SimGrid (plain max-min sharing,
  // as on RDMA / NVLink fabrics) and every flow's route latency is added to its time.
  bool rtt_fair_sharing = false;
  FabricRouting fabric_routing = FabricRouting::pooled;
  std::uint64_t ecmp_seed = 1;  // the hash seed of --fabric-routing ecmp
  // NCCL's protocols: each collective runs in the protocol NCCL's tuning model picks for its
  // size (nccl_model.h), with that protocol's latency from the same model (base latency, LL
  // 6.6 us, LL128 14, Simple 8.4, plus per-step hardware latency of the protocol on each
  // hop) in place of the routes' latencies, and its wire overhead on every flow (LL sends 8
  // bytes per 4 of data: x2; LL128 x128/120; Simple x1). Off: route latencies, plain flows.
  bool nccl_protocols = false;
  // NCCL's base latency per call: each collective also pays the baseLat of the protocol NCCL's
  // model picks for its size (nccl_model.h: kernel launch and protocol set-up, which the
  // routes' latencies leave out). Included in nccl_protocols' latency; not added to a
  // calibrated op (its fitted latency holds it).
  bool call_latency = false;
  // Algorithm for the collective steps of run_plan (plan steps name no algorithm).
  Algo plan_algo = Algo::ring;
  // Calibrated per-operation costs (prunex calibrate), keyed "op/group" (e.g.
  // "allreduce/intra"): where a live library implements operations at different speeds over
  // the same links, a collective of that op on that group pays latency_s per latency term
  // instead of the route latency, and its flows carry bytes x bytes_scale (the links' speed
  // over the op's fitted speed), so it takes its measured time while its flows still share
  // links as the schedule says.
  // An op may have several size ranges (a library switches algorithms by size): a cost applies
  // to collectives of at most max_bytes (all-gather: the gathered total, as bench rows count),
  // the first that fits; the last applies beyond.
  struct OpCost {
    double max_bytes = 0;
    double latency_s = 0;
    double bytes_scale = 1;
    int gpus_per_node = 0;  // of the shape it was measured on (0: several shapes, unknown)
  };
  std::map<std::string, std::vector<OpCost>> op_costs = {};  // keyed by op_cost_key()
  // Costs of collectives that follow other communication (PlanStep::warm), where measured
  // apart (on a CPU host they run faster than right after compute); else op_costs.
  std::map<std::string, std::vector<OpCost>> op_costs_warm = {};
  // Calibrated memory throughput per phase (bytes as the plan counts them, per second, per
  // GPU / rank), keyed by phase name or a step's memory_key: the consensus kernels
  // (dual_update, projection, pack, unpack), the compaction plan build and Top-K's compress
  // run at their own measured speed, per-call overheads included, instead of the GPU's
  // memory bandwidth. A step uses its key's speed, else its phase's, else the bandwidth.
  std::map<std::string, double> memory_Bps = {};
  // Rails a calibrated node-to-node path pools (RankLayout::pooled_rails; --algo mpi).
  int pooled_rails = 1;
  // What-if studies (simulate --straggler-*, --degrade-nic): each world rank's compute-time
  // factor (empty: all 1; a straggler's is above 1), and NIC rails at a fraction of their
  // bandwidth (rail -1: every rail of the node).
  std::vector<double> compute_factor = {};
  struct NicDegrade {
    int node = 0;
    int rail = -1;
    double fraction = 1;
  };
  std::vector<NicDegrade> degraded_nics = {};
  // Compute-communication interference (simulate --interference): while a collective overlaps
  // a compute step (DDP's buckets during backward), that compute runs this many times slower
  // (collective kernels take SMs and memory bandwidth); 1: no interference.
  double overlap_slowdown = 1;
  // Synchronisation skew (simulate --sync-skew): each rank's compute between two
  // synchronisations varies at random, independently per local step, with this standard
  // deviation as a fraction of its mean. A collective starts when the last rank arrives, so the
  // first one after compute waits sync_skew x e(world) x the compute since the ranks last
  // synchronised / sqrt(the local steps it holds) (e: expected_max_std_normal, order_stats.h);
  // an overlapped bucket waits for the compute done when it is ready (the forward and its
  // ready fraction of the backward). Compute: compute steps and the layers' element-wise work,
  // not the optimizer's passes. 0: none; 1 rank: none.
  double sync_skew = 0;
};

// "allreduce/intra": the key of SimConfig::op_costs (and of a calibration's ops).
std::string op_cost_key(const std::string& op, const std::string& group);
std::string op_cost_key(CollectiveOp op, Group group);

// One point-to-point transfer between two world ranks.
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

struct FlowTiming {
  double seconds = 0;          // start to end, simulated
  double route_latency_s = 0;  // sum of link latencies on its route
  double delivered_bytes = 0;  // bytes SimGrid reports as transferred
};

struct CollectiveResult {
  double seconds = 0;
  std::vector<double> round_seconds;  // per round of the schedule, in order
  double delivered_bytes = 0;         // over all flows, as SimGrid completed them
  std::size_t flows = 0;
  std::string network_model;  // model_description()
  std::string protocol;       // with SimConfig::nccl_protocols: LL, LL128 or Simple
  Algo algo = Algo::ring;     // the algorithm run (Algo::nccl: the one NCCL's model picked)
};

// Per step of a plan: when it started, how long it took, and each rank's busy time
// (0 for ranks outside the step's group).
struct StepTiming {
  Phase phase = Phase::local_compute;
  double start_s = 0;
  double seconds = 0;
  std::vector<double> rank_seconds;
};

// What one simulated link (one direction of a cable, a switch port, a NIC) carried.
struct LinkLoad {
  std::string name;          // the platform's (backends/simgrid/platform.cc): node3_nic0_UP, ...
  double bytes = 0;          // on the wire, its flows' bytes (protocol overhead included)
  double bandwidth_Bps = 0;  // the link's own
};

struct PlanTiming {
  std::vector<StepTiming> steps;
  double iteration_seconds = 0;
  std::map<Phase, double> phase_seconds;  // summed over steps of each phase
  std::string network_model;              // model_description()
  std::vector<LinkLoad> links;            // every link a collective's flow crossed, by name
};

}  // namespace prunex::sim
