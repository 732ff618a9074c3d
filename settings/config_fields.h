// Field tables: a command's settings declared once — flag name (also the JSON key), value
// name, help, a setter that parses and checks the text, and a getter for the record. The
// command line, `--config FILE` and the `config` object of metrics.json all go through the
// table, so a run's recorded config is accepted back by the command that wrote it.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/error.h"

namespace prunex {

// What a field's value is, for the command line (apps/field_options.h registers each field as
// a CLI11 option of this type, its range checked while parsing): text (names, lists, paths),
// a whole number or a real number in [lo, hi] (real: (lo, hi] when open_low), a boolean.
enum class FieldType { text, whole, real, boolean };

template <typename Config>
struct ConfigField {
  std::string name;        // flag name and JSON key, e.g. "local-epochs"
  std::string value_name;  // e.g. "N"
  std::string help;
  std::function<void(Config&, const std::string&)> set;  // throws UsageError
  std::function<nlohmann::json(const Config&)> get;
  FieldType type = FieldType::text;
  double lo = 0, hi = 0;
  bool open_low = false;
};

// Whether an option or field with this value name takes a comma-separated list: LIST, FILES,
// IDS or a name ending in ",..." (KEY=V,...). A list is also a JSON array in a config file;
// any other value is one scalar.
inline bool value_name_is_list(const std::string& v) {
  return v == "LIST" || v == "FILES" || v == "IDS" ||
         (v.size() > 4 && v.compare(v.size() - 4, 4, ",...") == 0);
}

// A field of an inner config (e.g. the simulate settings inside a sweep's config).
template <typename Outer, typename Inner>
ConfigField<Outer> nested_field(const ConfigField<Inner>& f, Inner Outer::*member) {
  return {f.name,
          f.value_name,
          f.help,
          [set = f.set, member](Outer& o, const std::string& v) { set(o.*member, v); },
          [get = f.get, member](const Outer& o) { return get(o.*member); },
          f.type,
          f.lo,
          f.hi,
          f.open_low};
}

// How a default reads in --help: strings bare, null (unset) empty.
// A list as the option takes it (8,16,32), not as JSON.
inline std::string default_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + default_text(x);
    return out;
  }
  return v.dump();
}

// A metrics.json `config` in today's spelling: every key as its flag name (underscores read
// as dashes) and "backend" as "executor". Readers call it first, so older records (train:
// "backend", simulate: "local_epochs", ...) keep working.
nlohmann::json canonical_config(const nlohmann::json& config);

// A JSON value as the text a flag would carry ("true", "3", "0.5", "resnet50").
std::string config_value_text(const nlohmann::json& value, const std::string& origin,
                              const std::string& key);
// Parses a config file into a JSON object (UsageError naming the path when it is not one). A
// run's record (metrics.json, scaling.json) stands for its `config` object; `record` (when
// given) says whether the file was one.
nlohmann::json read_config_file(const std::string& path, bool* record = nullptr);

// Keys every run records beside its settings (facts of the run, not settings): --config
// accepts them back, and the command checks the ones it can (world size, nodes).
inline const std::set<std::string>& recorded_config_keys() {
  static const std::set<std::string> keys = {"executor",        "world-size",
                                             "nodes",           "input",
                                             "input-channels",  "samples",
                                             "steps-per-epoch", "plan-repeats",
                                             "effective-flops", "network-model-description",
                                             "trace-ranks",     "trace-steps",
                                             "parameters",      "forward-gflops-per-sample",
                                             "compute-model",   "compute-calibration",
                                             "links",           "emulation",
                                             "device",          "slurm"};
  return keys;
}

// Applies a JSON object (keys = field names) to cfg, in the table's order (a setting that sets
// others, like simulate's --dataset, comes before them); unknown keys and bad values are
// UsageErrors naming `origin` and the key. Recorded keys (above) are skipped unless a field
// of the table has that name. A null value leaves a setting unset: in a run's record
// (`record`) any setting the run did not use; in a hand-written file only a setting whose
// default is unset (a calibration file, masks), so that {"model": null} is a UsageError.
template <typename Config>
void apply_config_json(const std::vector<ConfigField<Config>>& fields, Config& cfg,
                       const nlohmann::json& j, const std::string& origin, bool record = true) {
  PRUNEX_USAGE(j.is_object(), origin, ": expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    const ConfigField<Config>* field = nullptr;
    for (const auto& f : fields)
      if (f.name == key) field = &f;
    PRUNEX_USAGE(field != nullptr || recorded_config_keys().count(key), origin, ": unknown key '",
                 key, "'");
    PRUNEX_USAGE(!value.is_null() || record || (field != nullptr && field->get(Config{}).is_null()),
                 origin, ": key '", key,
                 "' is null (give it a value, or leave it out for the default)");
    PRUNEX_USAGE(field == nullptr || !value.is_array() || value_name_is_list(field->value_name),
                 origin, ": key '", key, "' expects ",
                 field == nullptr                    ? ""
                 : field->type == FieldType::boolean ? "true or false"
                 : field->type == FieldType::text    ? "one value"
                                                     : "a number",
                 ", got the list ", value.dump());
  }
  for (const auto& field : fields) {
    const auto it = j.find(field.name);
    if (it == j.end() || it->is_null()) continue;  // not given; an unset setting
    try {
      field.set(cfg, config_value_text(*it, origin, field.name));
    } catch (const UsageError& e) {
      const std::string what = e.what();
      throw UsageError(what.rfind(origin + ": ", 0) == 0 ? what : origin + ": " + what);
    }
  }
}

template <typename Config>
nlohmann::json config_json(const std::vector<ConfigField<Config>>& fields, const Config& cfg) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : fields) j[f.name] = f.get(cfg);
  return j;
}

}  // namespace prunex
