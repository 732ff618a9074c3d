#include "records/plan_settings.h"

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
  in.strategy = parse_strategy(required<std::string>(config, "strategy", where));
  in.nodes = required<int>(config, "nodes", where);
  in.gpus_per_node = required<int>(config, "gpus-per-node", where);
  in.batch = required<int>(config, "batch", where);
  in.samples = required<long>(config, "samples", where);
  in.local_epochs = setting(config, "local-epochs", where, in.local_epochs);
  in.local_steps = setting(config, "local-steps", where, in.local_steps);
  in.ddp_overlap = config.contains("ddp-overlap")
                       ? setting(config, "ddp-overlap", where, in.ddp_overlap)
                       : !setting(config, "sync-phases", where, !in.ddp_overlap);
  in.bucket_bytes = static_cast<int64_t>(
      setting(config, "bucket-mib", where, static_cast<double>(in.bucket_bytes) / (1 << 20)) *
      (1 << 20));
  in.ddp_bucket_bytes = ddp_cap_bytes(
      setting(config, "bucket-cap-mb", where, kDdpBucketMib));  // 25 before it was set
  in.wire_dtype =
      parse_wire_dtype(setting(config, "wire-dtype", where, wire_dtype_name(in.wire_dtype)));
  in.pipeline_buckets = setting(config, "pipeline-buckets", where, in.pipeline_buckets);
  in.topk_ratio = setting(config, "topk-ratio", where, in.topk_ratio);
  in.prune_ratio = setting(config, "prune-ratio", where, in.prune_ratio);
  in.ternary = setting(config, "ternary", where, in.ternary);
  in.cgx_bits = setting(config, "bits", where, in.cgx_bits);
  in.cgx_bucket = setting(config, "bucket-size", where, in.cgx_bucket);
  return in;
}

}  // namespace prunex
