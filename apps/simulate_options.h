// The command-line side of `prunex simulate` and `prunex sweep`: their options come from the
// library's field table (backends/simgrid/simulate_config.h); this file only turns a command
// line (and --config FILE) into a SimulateConfig.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "backends/simgrid/simulate_config.h"

namespace prunex::cli {

// --config plus one option per field of `fields` (defaults from `defaults`), except `skip`.
template <typename Config>
std::vector<Option> field_options(const std::vector<ConfigField<Config>>& fields,
                                  const Config& defaults, const std::set<std::string>& skip = {}) {
  std::vector<Option> opts = {
      {"config", "FILE",
       "JSON settings (keys = option names; a metrics.json `config` reruns its run)", ""}};
  for (const auto& f : fields)
    if (!skip.count(f.name))
      opts.push_back({f.name, f.value_name, f.help, default_text(f.get(defaults))});
  return opts;
}

// Applies --config FILE (if given), then every option of `fields` given on the command line.
template <typename Config>
void apply_options(const std::vector<ConfigField<Config>>& fields, const Args& args, Config& cfg) {
  if (auto file = args.get("config"))
    apply_config_json(fields, cfg, canonical_config(read_config_file(*file)), *file);
  for (const auto& f : fields)
    if (auto v = args.get(f.name)) f.set(cfg, *v);
}

}  // namespace prunex::cli
