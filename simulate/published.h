// `prunex validate`: the simulator against measurements published by others (the suite in
// validation/published/*.json, format in validation/published/README.md). Each entry names
// its source, the cluster as a topology, the software as `prunex simulate` settings (or, for
// collective entries, a `prunex bench --backend sim` shape) and the published values per
// cluster size; every point is predicted on the modeled cluster and compared.
//
// GPU speed. Published tables rarely state how fast one GPU computes a step in their
// framework, so an entry may name a fit point (usually its one-GPU row): the GPU's effective
// FLOP/s is solved so that this point is predicted exactly (as `prunex calibrate` does for a
// live cluster). The fit point is reported apart and left out of the error statistics; every
// other point is held out. An entry without a fit point uses the topology's own speed.
//
// What binds a point: the point is simulated again with each of compute (FLOP/s and memory
// bandwidth), intra-node bandwidth, inter-node bandwidth and every latency made twice as
// fast; the one whose doubling saves the most time binds.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulate/error_band.h"

namespace prunex::sim {

// What an entry's values measure.
enum class Quantity {
  seconds_per_iteration,  // time of one training step (all GPUs in step)
  images_per_second,      // global training throughput (all GPUs)
  busbw_GBps,             // nccl-tests bus bandwidth of one collective
  seconds_per_op,         // nccl-tests time of one collective
};

struct PublishedPoint {
  std::string label;  // as the source names the size ("1M/8G", "2 x 4")
  int nodes = 1;
  int gpus_per_node = 1;
  double value = 0;
  std::string note;  // a point-specific setting or remark
  // Non-empty: a model factor was fitted on this point (named here), so it is reported as a
  // fit row, not held out.
  std::string fits;
  // Settings that differ for this point only (e.g. a smaller batch), over the entry's.
  nlohmann::json simulate = nlohmann::json::object();
};

struct PublishedEntry {
  std::string id;    // "file/name", unique in the suite
  std::string file;  // the suite file it came from
  std::string title;
  std::string source;  // repository, path and commit, or URL
  std::string software;
  Quantity quantity = Quantity::seconds_per_iteration;
  // Training entries: `prunex simulate` settings (keys = option names).
  nlohmann::json simulate;
  // Collective entries: {"topology", "op", "bytes", "algo"} (bench --backend sim).
  nlohmann::json bench;
  std::string fit;  // label of the point that fixes the GPU speed ("": the topology's)
  // Or: the id of another entry (same GPU, framework and precision) whose fitted speed this
  // one runs at, so even its one-GPU rows are held out (compute across models).
  std::string fit_from;
  std::string not_modelled;  // why the entry is not run (its points are still listed)
  std::string caveat;        // what the model leaves out for this entry, stated in the table
  std::vector<PublishedPoint> points;
};

// Reads every *.json of `dir` (sorted by name); UsageError naming file and key on anything
// malformed, unknown or inconsistent. `only` (ids or id prefixes, or suite file names such as
// nccl-tests.json for all of a file's entries; empty: all) picks entries, and the entries
// their speed comes from (fit_from); an item that matches nothing is an error.
std::vector<PublishedEntry> load_published_suite(const std::string& dir,
                                                 const std::vector<std::string>& only = {});

// The `prunex simulate` settings of one point of a training entry: the entry's, the point's
// shape and overrides, one local step per iteration and one iteration (`prunex simulate
// --config` of this object reruns the point, at the topology's GPU speed).
nlohmann::json published_point_settings(const PublishedEntry& e, const PublishedPoint& p);

// What can bind a point, in the order of PublishedRow::saved.
inline constexpr const char* kBindingResources[4] = {"compute", "intra", "inter", "latency"};

struct PublishedRow {
  std::string entry, label;
  int nodes = 1, gpus_per_node = 1;
  Quantity quantity = Quantity::seconds_per_iteration;
  double published = 0, predicted = 0;
  bool fit = false;      // the point that fixed the GPU speed (not held out)
  std::string binds;     // compute, intra, inter or latency
  double saved[4] = {};  // time saved by doubling compute, intra, inter, latency (s)
  double step_s = 0;     // predicted time of the step or collective
  // The collectives' exposed share of step_s (simulate_run.h; a collective entry: 1).
  double communication_share = 0;
  // The rows it resembles (error_band.h): a measured speed is the entry's fit or fit_from.
  BandKey key;
  double error() const { return predicted / published - 1; }
  // ln(predicted time / measured time): a throughput or bus bandwidth is a time's inverse.
  double log_ratio() const;
};

struct PublishedResult {
  std::vector<PublishedRow> rows;
  // Per entry with a fit point: the fitted effective FLOP/s (entry id -> value).
  std::vector<std::pair<std::string, double>> fitted_flops;
};

// Runs every modeled entry: fits first (one after another), then every point and its four
// doublings, `jobs` processes at a time. `overrides` (simulate settings, e.g.
// {"interference": 1}) replace simulate's defaults for every training point (what an entry or
// point states itself wins), and achieved-bandwidth and call-latency also apply to collective
// entries.
// progress(done, total) after each simulation.
PublishedResult run_published_suite(const std::vector<PublishedEntry>& suite, int jobs,
                                    const nlohmann::json& overrides,
                                    const std::function<void(int, int)>& progress);

const char* quantity_name(Quantity q);

// exp(mean |ln(predicted / published)|) - 1 over the held-out rows (fit rows left out); 0 when
// there are none.
double geomean_abs_error(const std::vector<PublishedRow>& rows);

// The held-out rows' residuals, from which error bands are read (validate writes them to
// OUT/residuals.json).
std::vector<Residual> held_out_residuals(const std::vector<PublishedRow>& rows);

// The suite's report: rows (each held-out row with its band from the other entries' rows:
// leave one entry out), per-entry trend check, geometric-mean errors, the bands' coverage,
// unmodelled entries.
nlohmann::json published_report(const std::vector<PublishedEntry>& suite,
                                const PublishedResult& result);
// The same as a Markdown table (what the command prints).
std::string published_markdown(const nlohmann::json& report);

}  // namespace prunex::sim
