#include "settings/plan_settings.h"

#include "engine/error.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

// The value at `key` as T, or `fallback` when the config has no such key (an older record);
// UsageError when it is there but of another kind.
template <typename T>
T setting(const nlohmann::json& config, const char* key, const std::string& where, T fallback) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  bool fits = false;
  if constexpr (std::is_same_v<T, bool>)
    fits = it->is_boolean();
  else if constexpr (std::is_same_v<T, std::string>)
    fits = it->is_string();
  else
    fits = it->is_number();
  PRUNEX_USAGE(fits, where, ": config.", key, " is ", it->dump(), ", not a ",
               std::is_same_v<T, bool>          ? "boolean"
               : std::is_same_v<T, std::string> ? "string"
                                                : "number");
  return it->get<T>();
}

template <typename T>
T required(const nlohmann::json& config, const char* key, const std::string& where) {
  PRUNEX_USAGE(config.contains(key) && !config[key].is_null(), where, ": config.", key,
               " missing (a metrics.json of this version of prunex is needed)");
  return setting<T>(config, key, where, T{});
}

}  // namespace

PlanInputs plan_inputs_of_config(const nlohmann::json& config, const std::string& where) {
  PRUNEX_USAGE(config.is_object(), where, ": the config is not an object");
  PlanInputs in;
  RunSettings& run = in.run;
  run.strategy = parse_strategy(required<std::string>(config, "strategy", where));
  in.nodes = required<int>(config, "nodes", where);
  in.gpus_per_node = required<int>(config, "gpus-per-node", where);
  run.batch = required<int>(config, "batch", where);
  in.samples = required<long>(config, "samples", where);
  run.local_epochs = setting(config, "local-epochs", where, run.local_epochs);
  run.local_steps = setting(config, "local-steps", where, run.local_steps);
  in.ddp_overlap = config.contains("ddp-overlap")
                       ? setting(config, "ddp-overlap", where, in.ddp_overlap)
                       : !setting(config, "sync-phases", where, !in.ddp_overlap);
  HsadmmSettings& h = run.hsadmm;
  h.bucket_mib = setting(config, "bucket-mib", where, h.bucket_mib);
  run.ddp.bucket_cap_mb = setting(config, "bucket-cap-mb", where, run.ddp.bucket_cap_mb);
  h.wire_dtype =
      parse_wire_dtype(setting(config, "wire-dtype", where, wire_dtype_name(h.wire_dtype)));
  h.pipeline_buckets = setting(config, "pipeline-buckets", where, h.pipeline_buckets);
  run.topk.topk_ratio = setting(config, "topk-ratio", where, run.topk.topk_ratio);
  run.pactrain.prune_ratio = setting(config, "prune-ratio", where, run.pactrain.prune_ratio);
  run.pactrain.ternary = setting(config, "ternary", where, run.pactrain.ternary);
  run.cgx.bits = setting(config, "bits", where, run.cgx.bits);
  run.cgx.bucket_size = setting(config, "bucket-size", where, run.cgx.bucket_size);
  PowersgdSettings& p = run.powersgd;
  p.matrix_approximation_rank =
      setting(config, "matrix-approximation-rank", where, p.matrix_approximation_rank);
  p.min_compression_rate = setting(config, "min-compression-rate", where, p.min_compression_rate);
  return in;
}

PlanInputs plan_inputs(const RunSettings& run, int nodes, int gpus_per_node, long samples,
                       bool ddp_overlap) {
  PlanInputs in;
  in.run = run;
  in.nodes = nodes;
  in.gpus_per_node = gpus_per_node;
  in.samples = samples;
  in.ddp_overlap = ddp_overlap;
  return in;
}

}  // namespace prunex
