#include "calibration/calibration_runs.h"

#include <cmath>
#include <set>

#include <fmt/core.h>

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "records/json_file.h"
#include "records/run_record.h"
#include "records/run_replay.h"
#include "settings/config_fields.h"
#include "settings/plan_settings.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::sim {
namespace {

// The plan inputs of a live run from its recorded config (settings/plan_settings.h) and its
// model's layout (`layout` must outlive the result).
PlanInputs plan_inputs_of(const nlohmann::json& cfg, const std::string& where,
                          ModelLayout& layout) {
  PlanInputs in = plan_inputs_of_config(cfg, where);
  PRUNEX_USAGE(cfg.contains("classes") && cfg["classes"].is_number(), where,
               ": config.classes missing (a `prunex train` metrics.json is needed)");
  const std::string dataset = cfg.value("dataset", std::string());
  const nlohmann::json& input = json_member(cfg, "input");
  const nlohmann::json& channels = json_member(cfg, "input-channels");
  layout = make_layout(
      cfg.value("model", std::string()), cfg["classes"].get<int>(),
      input.is_number() ? input.get<int>() : (dataset == "fashion-mnist" ? 28 : 32),
      channels.is_number() ? channels.get<int>() : (dataset == "fashion-mnist" ? 1 : 3));
  in.layout = &layout;
  return in;
}

// The fits' words for a record holding a value of the wrong type (reading_run).
constexpr const char* kWrongType = "a value of the wrong type in its records";

// Runs `read` on run r's record: a value of the wrong type where the reader expects another is
// one line naming the file ("--steps PATH: WHAT (json's message)"), like every other malformed
// input.
template <class Read>
void reading_run(const StepsRun& r, const char* what, Read read) {
  try {
    read();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("--steps " + r.path + ": " + what + " (" + e.what() + ")");
  }
}

void load_steps_run_fields(StepsRun& r) {
  const std::string& path = r.path;
  const std::string where = "--steps " + path;
  r.metrics = read_json_file(path, "--steps");
  PRUNEX_USAGE(
      r.metrics.is_object() && r.metrics.contains("config") && r.metrics.contains("iterations"),
      where, ": not a metrics.json");
  r.metrics["config"] = canonical_config(r.metrics["config"]);  // old spellings too
  const auto& cfg = r.metrics["config"];
  PRUNEX_USAGE(cfg.value("executor", std::string()) != "simgrid", where,
               ": a simulated run; calibrate from live runs");
  r.in = plan_inputs_of(cfg, where, r.layout);
  if (packs_compact_payload(r.in.run.strategy)) {  // compacts with each iteration's mask
    const SparsitySpec spec = SparsitySpec::build(
        r.layout, parse_sparsity_kinds(cfg.value("sparsity", std::string("channel"))),
        KeepRate::of_fraction(cfg.value("keep", 0.5)));
    r.masks = payload_masks(r.metrics, r.layout, spec, where);
    r.in.global_mask = &r.masks.of(1);
  }
}

// "N live run(s) (first.json, ...), I iterations, slowest rank, R ranks"
std::string runs_source(const std::vector<std::unique_ptr<StepsRun>>& runs, int iterations,
                        int ranks) {
  return std::to_string(runs.size()) + " live run(s) (" + runs.front()->path +
         (runs.size() > 1 ? ", ..." : "") + "), " + std::to_string(iterations) +
         " iterations, slowest rank, " + std::to_string(ranks) + " ranks";
}

// Iterations a fit uses: all but the first (start-up) when there are more.
size_t first_fitted(const nlohmann::json& its) {
  return its.size() > 1 ? 1 : 0;
}

// Memory bytes of one outer iteration by phase and speed key (a step's memory_key, else its
// phase), from the plan (local_compute left out: its time is the compute fit's; so are the
// communication phases, whose time is mostly their collectives': cgx's quantization).
std::map<std::string, std::map<std::string, double>> memory_bytes(const PlanInputs& in) {
  const IterationPlan plan = build_plan(in);
  const double repeats = static_cast<double>(plan_repeats(in));
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& s : plan.steps)
    if (s.kind == StepKind::memory && s.phase != Phase::local_compute && !is_communication(s.phase))
      out[std::string(phase_name(s.phase))]
         [s.memory_key.empty() ? std::string(phase_name(s.phase)) : s.memory_key] +=
          s.mem_bytes * repeats;
  return out;
}

}  // namespace

std::vector<std::unique_ptr<StepsRun>> load_steps_runs(const std::vector<std::string>& files) {
  std::vector<std::unique_ptr<StepsRun>> runs;
  for (const auto& path : files) {
    runs.push_back(std::make_unique<StepsRun>());
    StepsRun& r = *runs.back();
    r.path = path;
    int w = 0;
    reading_run(r, "not a metrics.json of prunex train", [&] {
      load_steps_run_fields(r);
      w = r.metrics["config"].value("world-size", 0);
    });
    const int first = runs.front()->metrics["config"].value("world-size", 0);
    PRUNEX_USAGE(w == first, "--steps: ", path, " ran on ", w, " ranks, an earlier file on ", first,
                 "; calibrate each world size separately");
  }
  return runs;
}

namespace {

// The fixed cost per step needs batch sizes at least this far apart (largest over smallest).
constexpr double kMinBatchRatio = 1.5;

// One fitted iteration of a live run: its local steps, their FLOPs and the slowest rank's
// local_compute seconds.
struct ComputeSample {
  double steps, flops, seconds;
};

// n x c + F / S = T over the samples by least relative squares (each residual over its T):
// the normal equations of (c, 1 / S) for the rows (n / T, F / T) -> 1. False where the
// system is singular or either value comes out non-positive (no fixed cost resolved).
bool fit_overhead_and_speed(const std::vector<ComputeSample>& samples, double& overhead_s,
                            double& flops_per_s) {
  double aa = 0, ab = 0, bb = 0, a1 = 0, b1 = 0;
  for (const auto& s : samples) {
    const double a = s.steps / s.seconds, b = s.flops / s.seconds;
    aa += a * a, ab += a * b, bb += b * b, a1 += a, b1 += b;
  }
  const double det = aa * bb - ab * ab;
  if (!(std::abs(det) > 1e-12 * aa * bb)) return false;
  const double c = (a1 * bb - b1 * ab) / det, x = (aa * b1 - ab * a1) / det;
  if (!(c > 0 && x > 0)) return false;
  overhead_s = c;
  flops_per_s = 1 / x;
  return true;
}

}  // namespace

sim::ComputeFit fit_compute(const std::vector<std::unique_ptr<StepsRun>>& runs) {
  sim::ComputeFit f;
  std::vector<ComputeSample> samples;
  std::set<int> batches;
  double flops = 0, seconds = 0;
  for (const auto& r : runs)
    reading_run(*r, kWrongType, [&] {
      const double steps = static_cast<double>(steps_per_iteration(r->in));
      const double per_iteration = step_flops(r->in) * steps;
      const auto& its = r->metrics["iterations"];
      for (size_t k = first_fitted(its); k < its.size(); ++k) {
        const auto& ph = its[k].value("phases", nlohmann::json::object());
        PRUNEX_USAGE(ph.contains("local_compute"), "--steps ", r->path, ": iteration ", k + 1,
                     " has no local_compute phase");
        const double s = ph["local_compute"].value("critical_path_s", 0.0);
        seconds += s;
        flops += per_iteration;
        if (s > 0) {
          samples.push_back({steps, per_iteration, s});
          batches.insert(r->in.run.batch);
        }
        ++f.iterations;
      }
    });
  PRUNEX_USAGE(seconds > 0 && f.iterations > 0, "--steps: no local_compute time recorded");
  f.flops_per_rank = flops / seconds;
  f.ranks = runs.front()->metrics["config"].value("world-size", 0);
  f.source = "local steps of " + runs_source(runs, f.iterations, f.ranks);
  // Batch sizes far enough apart tell a fixed cost per step from the FLOPs' rate; one batch
  // size cannot, and close ones (16 and 17) would hand noise to the fixed cost.
  if (batches.size() > 1 && *batches.rbegin() < kMinBatchRatio * *batches.begin()) {
    f.source += "; batch sizes " + std::to_string(*batches.begin()) + " to " +
                std::to_string(*batches.rbegin()) +
                fmt::format(" are under {:g}x apart: the FLOPs' rate alone", kMinBatchRatio);
  } else if (batches.size() > 1) {
    std::string sizes;
    for (int b : batches) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
    double c = 0, speed = 0;
    if (fit_overhead_and_speed(samples, c, speed)) {
      f.step_overhead_s = c;
      f.flops_per_rank = speed;
      f.source += "; a fixed cost per local step and the FLOPs' rate, fitted over batch sizes " +
                  sizes + " (least relative squares)";
    } else {
      f.source += "; batch sizes " + sizes +
                  " resolve no positive fixed cost per step: the FLOPs' rate alone";
    }
  }
  return f;
}

// Per memory phase, the plan's bytes over the slowest rank's seconds in the runs' iterations
// (the median of the iterations' speeds, sim::fit_memory_speeds):
// the engine's own kernels (consensus updates, projection, pack / unpack, Top-K selection) at
// the speed they ran, per-call overheads included. hsadmm iteration k's plan follows the live
// freezer and compacts with that iteration's payload mask, as simulate --masks does.
std::map<std::string, sim::MemoryFit> fit_memory_phases(
    const std::vector<std::unique_ptr<StepsRun>>& runs) {
  std::map<std::string, std::vector<sim::MemorySample>> samples;  // by phase
  for (const auto& r : runs)
    reading_run(*r, kWrongType, [&] {
      const int ranks = r->metrics["config"].value("world-size", 1);
      const auto& its = r->metrics["iterations"];
      auto frozen_after = [&](long k) { return k >= 0 && its[k].value("mask_frozen", false); };
      for (size_t k = first_fitted(its); k < its.size(); ++k) {
        const long i = static_cast<long>(k);
        set_freeze_state(r->in, frozen_after(i - 2), frozen_after(i - 1), frozen_after(i));
        if (!r->masks.empty()) r->in.global_mask = &r->masks.of(static_cast<int>(k) + 1);
        const auto& ph = its[k].value("phases", nlohmann::json::object());
        for (const auto& [phase, bytes] : memory_bytes(r->in))
          if (ph.contains(phase))
            samples[phase].push_back({bytes, ph[phase].value("critical_path_s", 0.0), ranks});
      }
    });
  std::map<std::string, sim::MemoryFit> fits;
  for (const auto& [phase, ss] : samples)
    for (auto& [key, f] : sim::fit_memory_speeds(ss)) {
      f.source = (key == phase ? "phase " + phase : key + " in phase " + phase) + " of " +
                 runs_source(runs, f.iterations, f.ranks);
      fits[key] = f;
    }
  return fits;
}

sim::MemoryFit fit_memory(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "--memory");
  PRUNEX_USAGE(j.is_object() && j.contains("rows") && j["rows"].is_array(), "--memory ", path,
               ": not a `prunex bench --op compaction --json` file");
  // The CPU bench's memcpy row, or the GPU bench's (--device cuda) device-to-device copy: both
  // count the bytes read and written.
  const std::string where = "--memory " + path;
  for (const auto& r : j["rows"]) {
    const std::string op = json_text_or(r, "op", "", where);
    if (op == "memcpy" || op == "memcpyD2D") {
      const double bytes = json_number_or(r, "bytes", 0, where),
                   us = json_number_or(r, "time_us", 0, where);
      PRUNEX_USAGE(bytes > 0 && us > 0, "--memory ", path, ": ", op, " row without size or time");
      return {bytes / (us * 1e-6), 1,
              op + " row of " + path + " (bytes read + written per second, one process)"};
    }
  }
  PRUNEX_USAGE(false, "--memory ", path, ": no memcpy or memcpyD2D row");
  return {};
}

}  // namespace prunex::sim
