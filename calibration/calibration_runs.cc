#include "calibration/calibration_runs.h"

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "records/config_fields.h"
#include "records/json_file.h"
#include "records/plan_settings.h"
#include "records/run_record.h"
#include "records/run_replay.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::sim {
namespace {

// The plan inputs of a live run from its recorded config (records/plan_settings.h) and its
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
  if (packs_compact_payload(r.in.strategy)) {  // compacts with each iteration's mask
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
    if (s.kind == StepKind::memory && s.phase != phase::local_compute && !is_communication(s.phase))
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

sim::ComputeFit fit_compute(const std::vector<std::unique_ptr<StepsRun>>& runs) {
  sim::ComputeFit f;
  double flops = 0, seconds = 0;
  for (const auto& r : runs)
    reading_run(*r, kWrongType, [&] {
      const double per_iteration =
          step_flops(r->in) * static_cast<double>(steps_per_iteration(r->in));
      const auto& its = r->metrics["iterations"];
      for (size_t k = first_fitted(its); k < its.size(); ++k) {
        const auto& ph = its[k].value("phases", nlohmann::json::object());
        PRUNEX_USAGE(ph.contains("local_compute"), "--steps ", r->path, ": iteration ", k + 1,
                     " has no local_compute phase");
        seconds += ph["local_compute"].value("critical_path_s", 0.0);
        flops += per_iteration;
        ++f.iterations;
      }
    });
  PRUNEX_USAGE(seconds > 0 && f.iterations > 0, "--steps: no local_compute time recorded");
  f.flops_per_rank = flops / seconds;
  f.ranks = runs.front()->metrics["config"].value("world-size", 0);
  f.source = "local steps of " + runs_source(runs, f.iterations, f.ranks);
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
