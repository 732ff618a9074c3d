// The simulated platform's options (simulate/platform_fields.h) on the command line of a
// command that has no field table of its own: validate, bench, calibrate and reproduce
// register them with platform_options() and read them with read_platform(), so each option
// has one name, one help text and one parser everywhere (simulate and sweep take the same
// fields through their tables).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/field_options.h"
#include "simulate/platform_fields.h"

namespace prunex::cli {

// The options of the platform fields in `only` (empty: all), their defaults from `defaults`.
// `notes` adds a command's own sentence to a field's help (where it takes fewer values).
inline std::vector<Option> platform_options(const sim::PlatformSettings& defaults = {},
                                            const std::set<std::string>& only = {},
                                            const std::map<std::string, std::string>& notes = {}) {
  std::vector<Option> opts;
  for (const auto& f : sim::platform_fields()) {
    if (!only.empty() && !only.count(f.name)) continue;
    Option o = field_option(f, defaults);
    if (auto n = notes.find(f.name); n != notes.end()) o.help += ". " + n->second;
    opts.push_back(o);
  }
  return opts;
}

// The platform options given on the command line, applied to p; their names.
inline std::set<std::string> read_platform(const Args& args, sim::PlatformSettings& p) {
  std::set<std::string> given;
  for (const auto& f : sim::platform_fields())
    if (auto v = args.get(f.name)) {
      f.set(p, *v);
      given.insert(f.name);
    }
  return given;
}

// The platform option names, for commands that refuse them outside one mode.
inline std::vector<std::string> platform_option_names() {
  std::vector<std::string> names;
  for (const auto& f : sim::platform_fields()) names.push_back(f.name);
  return names;
}

}  // namespace prunex::cli
