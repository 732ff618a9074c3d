// Calibration of a topology from measurements (`prunex calibrate`): the latency and bandwidth
// of each tier fitted to `prunex bench` rows through the simulator's own closed forms
// (closed_form.h), the compute throughput of one rank from measured local steps, and the
// memory bandwidth from the compaction bench's memcpy row, or per phase from the live runs'
// phases (the consensus kernels and Top-K's compress at their measured speed). `simulate`, `sweep`
// and `bench --backend sim` apply it to their topology with --calibration FILE.
//
// Tier fit. For a row (op, group, nodes, GPUs per node, bytes) the ring closed form is
// linear in the tier's link latency L and inverse bandwidth 1/B:  t = cL * L + cB / B.
// The coefficients come from closed_form_seconds() itself, evaluated with (L = 1, B = inf)
// and (L = 0, B = 1) on the tier, so the fit inverts exactly what the simulator will do. The
// fit minimises the squared relative error over the chosen rows (small and large messages
// weigh alike); a negative L or 1/B falls back to the one-parameter fit.
//
// Shared host. Ranks of a localhost run share the host's cores: a rank's compute and memory
// speed is scaled by min(1, cores / ranks) relative to the run it was measured in.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netmodel/sim_config.h"
#include "topologies/topology.h"

namespace prunex::sim {

// One measured collective (a `prunex bench --json` row).
struct BenchPoint {
  std::string file;
  CollectiveOp op = CollectiveOp::allreduce;
  Group group = Group::world;
  int nodes = 1, gpus_per_node = 1, ranks = 1;
  double bytes = 0;    // the row's size (all-gather: the gathered total)
  double seconds = 0;  // measured
};

// Reads the rows of a `prunex bench --backend mpi --json` file (UsageError naming the file
// and the problem when it is not one).
std::vector<BenchPoint> read_bench_points(const std::string& path);

// The bandwidth of a fit whose rows fix none (latency only): "unbounded".
inline constexpr double kUnboundedBps = 1e30;

struct TierFit {
  double latency_s = 0;
  double bandwidth_Bps = 0;  // kUnboundedBps: latency only
  int points = 0;
  // Over the fitted points, as ratio errors: exp(|ln(predicted / measured)|) - 1.
  double max_abs_rel_err = 0;  // the largest
  double geomean_rel_err = 0;  // exp(mean |ln(predicted / measured)|) - 1
  double min_bytes = 0, max_bytes = 0;
  // The shape its rows were measured on, where they share one (else 0): a world fit made on
  // G ranks per node does not carry to a world of one rank per node (sim_cluster.cc).
  int nodes = 0, gpus_per_node = 0;
};

// A point with the calibrated model's prediction.
struct FittedPoint {
  BenchPoint point;
  double predicted_s = 0;
  bool fitted = false;  // used by the fit (else a check: world rows, sizes outside the range)
  double rel_err() const { return predicted_s / point.seconds - 1; }
};

struct ComputeFit {
  double flops_per_rank = 0;  // effective FLOP/s of one rank (3 x forward FLOPs per sample)
  // A fixed cost per local step (kernel launches, the optimizer's per-tensor calls, the
  // framework's bookkeeping), fitted beside the speed when the runs used several batch
  // sizes: a local_compute of n steps and F FLOPs takes n x step_overhead_s + F /
  // flops_per_rank. 0: one batch size (no way to tell the two apart) or none resolved.
  double step_overhead_s = 0;
  int ranks = 1;       // ranks on the host when it was measured
  int iterations = 0;  // iterations averaged
  std::string source;
};

struct MemoryFit {
  double bandwidth_Bps = 0;  // bytes read + written per second by one rank
  int ranks = 1;
  std::string source;
  // Per-phase fits (from live runs): the plan's bytes of the phase over the iterations fitted
  // and the slowest rank's seconds for them; bandwidth_Bps is the median of the iterations'
  // bytes / seconds (fit_memory_speeds).
  double bytes = 0, seconds = 0;
  int iterations = 0;
};

// How an op's rows become its cost.
//  line: one alpha-beta line through all sizes (split once, see Calibration::ops); a model
//        of the op that extrapolates, but on a CPU host the measured curve bends where MPI
//        switches protocols and a line misses some sizes by tens of percent.
//  piecewise: between each two consecutive benchmarked sizes, the alpha-beta line through
//        those two sizes' rows (least relative squares over every pass at both sizes), as
//        SMPI's piecewise factors interpolate measurements; below the smallest and above the
//        largest size the end segments extrapolate. A segment whose line would fall with size
//        takes the one-parameter fit of its two sizes.
enum class FitMode { line, piecewise };

// "line" / "piecewise"; UsageError naming `where` otherwise.
FitMode parse_fit_mode(const std::string& name, const std::string& where);
const char* fit_mode_name(FitMode m);

struct Calibration {
  std::map<std::string, TierFit> tiers;  // "intra", "inter": the links
  // "op/group" (e.g. "allgather/intra"): each benchmarked operation on each group fitted on its
  // own (per algorithm: a library runs broadcast, all-gather and all-reduce differently over
  // the same links), applied as SimConfig::op_costs.
  // An op's fit is a list of size ranges (segments, by bytes; each covers sizes up to its
  // max_bytes, the last also beyond). FitMode::line: one alpha-beta line, or two when one
  // misses by more than 10% in geometric mean and a split at some size halves that error.
  // FitMode::piecewise: one segment between each two consecutive benchmarked sizes.
  std::map<std::string, std::vector<TierFit>> ops;
  // The same fitted from benches of back-to-back collectives (calibrate --from-warm; empty:
  // none), for collectives that follow other communication rather than compute
  // (PlanStep::warm), applied as SimConfig::op_costs_warm.
  std::map<std::string, std::vector<TierFit>> ops_warm;
  FitMode op_fit = FitMode::line;  // how ops and ops_warm were fitted
  std::optional<ComputeFit> compute;
  std::optional<MemoryFit> memory;
  // Per phase (dual_update, projection, pack, unpack, compress) or step key (compaction_plan):
  // the engine's kernels timed in live runs' phases, as the plan counts their bytes (applied
  // as SimConfig::memory_Bps).
  std::map<std::string, MemoryFit> memory_phases;
  int host_cores = 0;  // > 0: ranks share this many cores (scale compute / memory by ranks)
  // calibrate --links relative: the inter tier and the per-op costs over it are kept relative
  // to the links of the topology they were fitted on (an emulated cluster whose links are
  // known: tc shapes them), so a topology with other links keeps the fitted efficiency and
  // software latency: bandwidth times its node-to-node bandwidth over inter_base_Bps, latency
  // plus its one-way latency minus inter_base_latency_s. Absolute (false): the fitted numbers
  // replace the links.
  bool links_relative = false;
  double inter_base_Bps = 0;        // the fitted topology's node-to-node bandwidth (all rails)
  double inter_base_latency_s = 0;  // its one-way node-to-node latency (NIC + one switch)
  std::vector<std::string> inputs;
  std::string topology;    // the base topology the fit used
  Algo algo = Algo::ring;  // FitOptions::algo of the op fits: simulate runs collectives so
};

struct FitOptions {
  std::vector<CollectiveOp> ops;  // empty: all
  double min_bytes = 0, max_bytes = 1e300;
  FitMode mode = FitMode::line;
  // The algorithms the op fits assume: ring (the closed form) or mpi (Open MPI's own choice
  // per size and rank count, collectives_mpi.cc: coefficients from schedule_load). Tiers
  // always use the ring closed form.
  Algo algo = Algo::ring;
};

// Fits the tiers that have rows (intra from intra rows, inter from inter rows) on `base`, and
// every (op, group) with 2 or more rows on its own (world rows included); returns every point
// with the calibrated prediction (its op fit where there is one, else its tier's).
void fit_bench(const Topology& base, const std::vector<BenchPoint>& pts, const FitOptions& opt,
               Calibration& cal, std::vector<FittedPoint>& out);

// A node's bandwidth to another node (every rail; a star's port may cap a rail) and the one-way
// latency of that route (NIC and one switch): what --links relative scales by.
double node_inter_Bps(const Topology& t);
double node_inter_latency_s(const Topology& t);

// The topology with the calibrated numbers in place (sources say "calibrated: ..."), for a run
// of `ranks` ranks on the host (scales compute and memory when host_cores > 0).
Topology apply_calibration(Topology t, const Calibration& c, int ranks);
// The per-hop link a calibrated op's bytes are scaled against (op_costs): a GPU-to-GPU link
// inside a node, a NIC rail between nodes (inter, rail), a world ring channel's bandwidth.
double group_link_Bps(const Topology& t, Group group, int nodes, int gpus_per_node);
// The per-op costs of `c` on the calibrated topology t (apply_calibration's result) for a run
// of nodes x GPUs per node: latency per step, and bytes scaled by the group's link bandwidth
// over the op's (links_relative: over the op's on the links the fit was made on, and latency
// plus the route's latency difference, for every group but intra).
std::map<std::string, std::vector<SimConfig::OpCost>> op_costs(const Calibration& c,
                                                               const Topology& t, int nodes,
                                                               int gpus_per_node,
                                                               bool warm = false);

// One live iteration of one memory phase: the plan's bytes in it by speed key (the phase's
// name, or a step's memory_key) and the slowest rank's seconds.
struct MemorySample {
  std::map<std::string, double> bytes;
  double seconds = 0;
  int ranks = 1;
};

// Speeds per key from a phase's samples. Samples with one key give that key's speed (the
// median over samples of bytes / seconds: robust to one stalled iteration). A sample with
// more keys gives the keys not known from single-key samples the time left after the known
// keys' share (samples with nothing left are skipped); unknown keys of one sample share a
// speed. Keys with no time stay unfitted (the simulator then uses the phase's speed).
std::map<std::string, MemoryFit> fit_memory_speeds(const std::vector<MemorySample>& samples);

// The per-phase memory speeds of `c` for a run of `ranks` ranks on the host (scaled by the host
// share as compute is), for SimConfig::memory_Bps.
std::map<std::string, double> memory_costs(const Calibration& c, int ranks);

nlohmann::json calibration_json(const Calibration& c, const std::vector<FittedPoint>& points);
// UsageError naming the file and field when malformed.
Calibration read_calibration(const std::string& path);

// --calibration FILE (calibration.h) applied to a run of cfg.nodes x cfg.gpus_per_node: the
// topology's links and speeds, and cfg's per-op costs.
void apply_calibration_file(const std::string& file, Topology& t, SimConfig& cfg);
// The same with the file already read (`file` names it in notes).
void apply_calibration_file(const Calibration& c, const std::string& file, Topology& t,
                            SimConfig& cfg);

// Shared by the fits (calibration.cc) and their application (calibration_apply.cc):
// the tier's link parameters in topology t (intra: the intra-node link; inter: the NIC, with
// the star fabric's links as fast, so the NIC is the hop that counts), and a rank's share of
// the host when ranks outnumber cores.
void set_tier(Topology& t, const std::string& tier, double latency_s, double bandwidth_Bps);
double host_share(const Calibration& c, int ranks);

// The calibration's fixed cost per local step for `ranks` ranks (its compute fit's, scaled as
// its speed is when ranks share the host's cores); 0 without one.
double calibrated_step_overhead_s(const Calibration& c, int ranks);

}  // namespace prunex::sim
