// The records every run writes (docs/design.md, "Contracts"): OUT/metrics.json and OUT/trace.json,
// the same for live and simulated runs. Producers fill a RunRecord; write_run() derives the
// critical paths and the summary and writes both files atomically (temp file + rename), so a
// failed run leaves no half-written output.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/phases.h"
#include "engine/tier_bytes.h"

namespace prunex {

// Layer-wise ADMM residual norms (Frobenius) for one rank.
struct LayerResiduals {
  double r_intra = 0, s_intra = 0, r_inter = 0, s_inter = 0;
};

struct IterationRecord {
  int iteration = 0;  // 1-based outer iteration
  // phase -> seconds on each rank (index = world rank; 0 where the rank takes no part).
  std::map<Phase, std::vector<double>> phase_seconds;
  double wall_seconds = 0;  // the iteration's wall time (max over ranks)
  TierBytes bytes;
  double dense_inter_bytes = 0;           // what the inter tier would carry without shrinkage
  std::map<std::string, double> density;  // layer -> kept fraction
  // layer -> residuals per rank (may be empty for baselines).
  std::map<std::string, std::vector<LayerResiduals>> residuals;
  std::map<std::string, std::pair<double, double>> rho;  // layer -> (rho1, rho2)
  std::optional<double> loss, accuracy;
  bool mask_frozen = false;
  nlohmann::json extra = nlohmann::json::object();  // anything else a producer wants kept
};

struct TraceEvent {
  int rank = 0;
  Phase phase = Phase::local_compute;
  double start_s = 0;
  double duration_s = 0;
};

// A value over time on a track of its own in trace.json (a Chrome counter event, "ph": "C"):
// a simulated link's utilisation, each value holding until the next.
struct TraceCounter {
  std::string track;   // e.g. "link n0_nic0_UP"
  std::string series;  // e.g. "utilisation %"
  double time_s = 0;
  double value = 0;
};

struct RunRecord {
  nlohmann::json config = nlohmann::json::object();  // everything needed to rerun
  int ranks = 1;
  std::vector<IterationRecord> iterations;
  std::vector<TraceEvent> trace;
  std::vector<TraceCounter> counters;
  nlohmann::json summary_extra = nlohmann::json::object();  // merged into "summary"
  // Further JSON files written next to metrics.json (e.g. "masks.json").
  std::map<std::string, nlohmann::json> extra_files;
  // summary.completed: false in the metrics.json a live run writes after each iteration, true
  // in the final one (a run killed midway keeps what it measured, marked unfinished).
  bool completed = true;
};

// Critical path of a phase in one iteration: the slowest rank.
double critical_path(const std::vector<double>& per_rank);

nlohmann::json iteration_json(const IterationRecord& it);
// The inverse, for a record read back (a resumed run's earlier iterations): keys it does not
// know go to extra. UsageError naming `origin` and the key when a value has the wrong type.
IterationRecord iteration_from_json(const nlohmann::json& j, const std::string& origin);
// summary: time_per_iteration_s, inter_node_bytes_per_iteration,
// dense_inter_node_bytes_per_iteration, phase_fraction (share of communication time),
// phase_seconds (mean critical path per phase), test_accuracy (last, when training), ...
nlohmann::json summary_json(const RunRecord& run);
nlohmann::json metrics_json(const RunRecord& run);
nlohmann::json trace_json(const RunRecord& run);

// Writes OUT/metrics.json and OUT/trace.json (creating OUT). Each file is written to a
// temporary name and renamed, so readers never see half a file.
void write_run(const RunRecord& run, const std::string& out_dir);
// OUT/metrics.json alone (the record so far, during a run), written the same way.
void write_metrics(const RunRecord& run, const std::string& out_dir);

// Writes text to path atomically (temp + rename); creates parent folders.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace prunex
