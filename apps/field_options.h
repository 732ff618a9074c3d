// The command-line side of a field table (settings/config_fields.h): `train`, `simulate` and
// `sweep` declare their options from their tables and read a command line (and --config FILE)
// into their config through these two functions.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "engine/error.h"
#include "settings/config_fields.h"
#include "settings/run_fields.h"

namespace prunex::cli {

// The CLI11 option of a field: typed as the field (whole: integer, real: real, each in its
// range), and checked while parsing by the field's own parser, as --config's values are.
template <typename Config>
Option field_option(const ConfigField<Config>& f, const Config& defaults) {
  Option o{f.name, f.value_name, f.help, default_text(f.get(defaults))};
  if (f.type == FieldType::whole || f.type == FieldType::real) {
    o.kind = f.type == FieldType::whole ? Kind::integer : Kind::real;
    o.lo = f.lo;
    o.hi = f.hi;
    o.open_low = f.open_low;
  }
  o.check = [set = f.set, defaults](const std::string& v) {
    Config scratch = defaults;
    set(scratch, v);
  };
  return o;
}

// --config plus one option per field of `fields` (defaults from `defaults`), except `skip`;
// `record` names the file whose `config` reruns a run.
template <typename Config>
std::vector<Option> field_options(const std::vector<ConfigField<Config>>& fields,
                                  const Config& defaults, const std::set<std::string>& skip = {},
                                  const std::string& record = "metrics.json") {
  std::vector<Option> opts = {
      {"config", "FILE",
       "JSON settings (keys = option names; a " + record + " `config` reruns its run)", ""}};
  for (const auto& f : fields)
    if (!skip.count(f.name)) opts.push_back(field_option(f, defaults));
  return opts;
}

// Applies --config FILE (if given), then every option of `fields` given on the command line.
// Returns the config file's object in today's spelling (empty without --config), whose
// recorded facts (world size, nodes) a command may check. `given` (when asked for) receives
// the settings the person chose: the flags, and the keys of a hand-written config file (a
// run's record holds every setting, chosen or not).
template <typename Config>
nlohmann::json apply_options(const std::vector<ConfigField<Config>>& fields, const Args& args,
                             Config& cfg, std::set<std::string>* given = nullptr) {
  nlohmann::json file_config = nlohmann::json::object();
  if (auto file = args.get("config")) {
    bool record = false;
    file_config = canonical_config(read_config_file(*file, &record));
    // A record of another command (a simulate or sweep record given to train) names settings
    // of its own: said as such, not as a typo.
    if (record)
      for (const auto& [key, value] : file_config.items()) {
        bool known = recorded_config_keys().count(key) > 0;
        for (const auto& f : fields) known = known || f.name == key;
        PRUNEX_USAGE(known, "--config ", *file, ": the record of another command (its setting '",
                     key, "' is not one of this command's)");
      }
    apply_config_json(fields, cfg, file_config, *file, record);
    if (given != nullptr && !record)
      for (const auto& [key, value] : file_config.items())
        if (!value.is_null()) given->insert(key);
  }
  for (const auto& f : fields)
    if (auto v = args.get(f.name)) {
      f.set(cfg, *v);
      if (given != nullptr) given->insert(f.name);
    }
  // Flags against the settings as they now stand (a config file may hold every setting, the
  // unused one at its default): a flag the run would ignore is refused.
  const auto in_use = [&](const std::string& name) {
    for (const auto& f : fields)
      if (f.name == name) {
        const nlohmann::json v = f.get(cfg);
        return !(v.is_null() || v == false || (v.is_number() && v.get<double>() == 0));
      }
    return false;
  };
  for (const auto& [a, b] : fields::exclusive_settings())
    PRUNEX_USAGE(!args.has(a) || !args.has(b) || !in_use(b), "--", a, " and --", b,
                 " are both given: a run takes one (see --help)");
  for (const auto& [setting, needs] : fields::dependent_settings())
    PRUNEX_USAGE(!args.has(setting) || in_use(needs), "--", setting, " applies with --", needs,
                 " (see --help)");
  return file_config;
}

}  // namespace prunex::cli
