#include "settings/plan_settings.h"

#include "engine/error.h"
#include "engine/wire_dtype.h"
#include "settings/config_fields.h"
#include "settings/run_fields.h"

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

// Sets `key` of run from the record's value through its field of run_fields() (UsageError
// naming `where` and the key when the value is one the command line would refuse).
void set_from_record(RunSettings& run, const nlohmann::json& config, const std::string& key,
                     const std::string& where) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return;
  for (const auto& f : fields::run_fields())
    if (f.name == key) {
      const bool typed = f.type == FieldType::boolean ? it->is_boolean()
                         : f.type == FieldType::text  ? it->is_string()
                                                      : it->is_number();
      PRUNEX_USAGE(typed, where, ": config.", key, " is ", it->dump(), ", not a ",
                   f.type == FieldType::boolean ? "boolean"
                   : f.type == FieldType::text  ? "string"
                                                : "number");
      try {
        f.set(run, config_value_text(*it, where, key));
      } catch (const UsageError& e) {
        throw UsageError(where + ": config." + key + ": " + e.what());
      }
      return;
    }
  PRUNEX_CHECK(false, "no run field named ", key);
}

}  // namespace

PlanInputs plan_inputs_of_config(const nlohmann::json& config, const std::string& where) {
  PRUNEX_USAGE(config.is_object(), where, ": the config is not an object");
  PlanInputs in;
  RunSettings& run = in.run;
  required<std::string>(config, "strategy", where);
  required<int>(config, "batch", where);
  // The run's settings through their fields (run_fields.h): each value parsed and checked
  // as the command line checks it, so a record holds nothing a command line could not say
  // (a batch of 0 would divide by zero in the plan).
  for (const char* key :
       {"strategy", "batch", "local-epochs", "local-steps", "bucket-mib", "bucket-cap-mb",
        "wire-dtype", "pipeline-buckets", "topk-ratio", "prune-ratio", "ternary", "bits",
        "bucket-size", "matrix-approximation-rank", "min-compression-rate"})
    set_from_record(run, config, key, where);
  // The run's facts: its shape and data set.
  in.nodes = required<int>(config, "nodes", where);
  in.gpus_per_node = required<int>(config, "gpus-per-node", where);
  in.samples = required<long>(config, "samples", where);
  PRUNEX_USAGE(in.nodes >= 1 && in.gpus_per_node >= 1 && in.samples >= 1, where,
               ": config.nodes, gpus-per-node and samples must be >= 1 (got ", in.nodes, ", ",
               in.gpus_per_node, ", ", in.samples, ")");
  in.ddp_overlap = config.contains("ddp-overlap")
                       ? setting(config, "ddp-overlap", where, in.ddp_overlap)
                       : !setting(config, "sync-phases", where, !in.ddp_overlap);
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
