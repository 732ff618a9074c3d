// Quantities the paper's figures show, computed from the records every run writes
// (metrics.json, trace.json, scaling.json; records/run_record.h) with the same definitions as
// the plot scripts (analysis/plots/): communication = the phases of is_communication,
// per iteration the sum of their critical paths. Malformed input is a UsageError naming the
// file and the field.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "records/run_record.h"

namespace prunex {

struct CommQuantities {
  double per_iteration_s = 0;             // mean over iterations of the comm phases' critical paths
  std::map<std::string, double> seconds;  // per comm phase: mean critical path per iteration
  // Share of each communication phase in the communication time, two ways:
  std::map<std::string, double> share_critical;   // critical paths (the plot's Fig. 8)
  std::map<std::string, double> share_rank_mean;  // mean over all ranks of per-rank seconds
  double plan_repeats = 1;  // steps per iteration for ddp/topk (config.plan_repeats)
};
CommQuantities comm_quantities(const nlohmann::json& metrics, const std::string& origin);

struct ByteQuantities {
  int iterations = 0;
  double total_inter = 0;  // sum of bytes.inter over iterations
  double total_dense = 0;  // sum of dense_inter_bytes
  double last_inter = 0;   // the last iteration's bytes.inter
  double last_dense = 0;   // its dense_inter_bytes
  double last_intra = 0;   // its bytes.intra
};
ByteQuantities byte_quantities(const nlohmann::json& metrics, const std::string& origin);

// Rank 0's busy time in the named phase per traced step of a trace.json (the union of its
// intervals, so overlapping events count once), averaged over `steps` traced steps. For a
// ddp run (one traced step per iteration) this is the all-reduce time of one step including
// the part hidden behind the backward pass.
double trace_busy_seconds(const nlohmann::json& trace, const std::string& phase, int steps,
                          const std::string& origin);

// One point of a strategy's curve as scaling.json records it (the sweep's own row type is
// records/scaling_record.h's ScalingPoint).
struct ScalingReading {
  int gpus = 0;
  double time_per_epoch_s = 0, speedup = 0, efficiency = 0;
  double communication_share = 0;  // of the time, exposed (0 where not recorded)
  // The time's error band: measured / predicted - 1 at `band_level` (0: none recorded).
  double band_level = 0, band_low = 0, band_high = 0;
  std::string band_where;
};
// One strategy's points from a scaling.json, by GPU count.
std::map<int, ScalingReading> scaling_points(const nlohmann::json& scaling,
                                             const std::string& strategy,
                                             const std::string& origin);
// The point's time band in words, e.g. "80% band 0.035-0.074 s (-23% / +62%: network-bound
// training steps and collectives)", or "no error band recorded".
std::string band_text(const ScalingReading& point);
// The point at `gpus` of one strategy's points (UsageError naming origin when absent).
const ScalingReading& scaling_at(const std::map<int, ScalingReading>& points, int gpus,
                                 const std::string& strategy, const std::string& origin);

}  // namespace prunex
