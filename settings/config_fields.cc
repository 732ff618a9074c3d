#include "settings/config_fields.h"
#include "records/json_file.h"

#include <fstream>

namespace prunex {

nlohmann::json canonical_config(const nlohmann::json& config) {
  if (!config.is_object()) return config;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : config.items()) {
    std::string k = key;
    for (char& c : k)
      if (c == '_') c = '-';
    // Records before 2026-11-25 named the executor "backend" (mpi or simgrid). Today "backend"
    // is also train's option (mpi or nccl), recorded beside "executor": only a file without
    // an executor key holding a value an executor had is an old record.
    if (k == "backend" && !config.contains("executor") && value != "nccl") k = "executor";
    if (!out.contains(k) || key == k) out[k] = value;  // today's spelling wins
  }
  // Old train records kept the grouping used as gpus_per_node beside the setting, which is 0
  // for grouping by host; today's records hold the grouping used in gpus-per-node.
  if (config.contains("gpus_per_node") && out.value("gpus-per-node", nlohmann::json(0)) == 0)
    out["gpus-per-node"] = config["gpus_per_node"];
  return out;
}

std::string config_value_text(const nlohmann::json& value, const std::string& origin,
                              const std::string& key) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return value.dump();
  if (value.is_number()) return nlohmann::json(value.get<double>()).dump();
  if (value.is_array()) {  // a list option ("8,16,32"), as a list of scalars
    std::string text;
    for (const auto& v : value) {
      PRUNEX_USAGE(v.is_primitive() && !v.is_null(), origin, ": key '", key,
                   "' holds a list with a non-scalar entry ", v.dump());
      text += (text.empty() ? "" : ",") + config_value_text(v, origin, key);
    }
    return text;
  }
  throw UsageError(origin + ": key '" + key + "' has an unsupported value " + value.dump());
}

nlohmann::json read_config_file(const std::string& path, bool* record) {
  nlohmann::json j = read_json_file(path, "--config");
  // A run's record (metrics.json, scaling.json): its config object.
  const bool is_record = j.is_object() && j.contains("config") && j["config"].is_object();
  if (record != nullptr) *record = is_record;
  return is_record ? j["config"] : j;
}

}  // namespace prunex
