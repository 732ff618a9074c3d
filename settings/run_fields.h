// The settings `prunex train` and `prunex simulate` (and sweep) share, declared once: flag name
// (= JSON key), value name, help, parser with bounds, recorded value, over RunSettings, which
// both configs derive from; each command adds its own fields and its own cross-field checks.
// The builders below are the typed fields every table uses.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/run_settings.h"
#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "settings/config_fields.h"

namespace prunex::fields {

constexpr long kMaxCount = 1L << 30;  // sizes beyond this are typos, not experiments

// true/false (also 1/0, on/off, yes/no).
bool parse_bool(const std::string& name, const std::string& v);

template <typename C>
ConfigField<C> text(std::string name, std::string vn, std::string help, std::string C::*m,
                    bool required = false) {
  return {
      name, vn, help,
      [m, name, required](C& c, const std::string& v) {
        PRUNEX_USAGE(!required || !v.empty(), "--", name, " must not be empty");
        c.*m = v;
      },
      [m](const C& c) { return c.*m == std::string() ? nlohmann::json() : nlohmann::json(c.*m); }};
}

template <typename C, typename T>
ConfigField<C> whole(std::string name, std::string vn, std::string help, T C::*m, long lo,
                     long hi) {
  return {name,
          vn,
          help,
          [m, name, lo, hi](C& c, const std::string& v) {
            c.*m = static_cast<T>(parse_long(v, "--" + name, lo, hi));
          },
          [m](const C& c) { return nlohmann::json(c.*m); },
          FieldType::whole,
          static_cast<double>(lo),
          static_cast<double>(hi)};
}

template <typename C>
ConfigField<C> boolean(std::string name, std::string help, bool C::*m) {
  return {name,
          "BOOL",
          help,
          [m, name](C& c, const std::string& v) { c.*m = parse_bool(name, v); },
          [m](const C& c) { return nlohmann::json(c.*m); },
          FieldType::boolean};
}

// A number in (lo, hi] (open_low) or [lo, hi].
template <typename C>
ConfigField<C> real(std::string name, std::string vn, std::string help, double C::*m, double lo,
                    double hi, bool open_low) {
  return {name,
          vn,
          help,
          [m, name, lo, hi, open_low](C& c, const std::string& v) {
            const double x = parse_double(v, "--" + name);
            PRUNEX_USAGE((open_low ? x > lo : x >= lo) && x <= hi, "--", name, " must be in ",
                         open_low ? "(" : "[", lo, ", ", hi, "], got '", v, "'");
            c.*m = x;
          },
          [m](const C& c) { return nlohmann::json(c.*m); },
          FieldType::real,
          lo,
          hi,
          open_low};
}

// A field whose 0 means "unset" (a what-if's "the topology's own"): recorded as null, as an
// empty text field is, so a record names only the settings a run changed.
template <typename C>
ConfigField<C> zero_is_unset(ConfigField<C> f) {
  f.get = [get = f.get](const C& c) {
    nlohmann::json v = get(c);
    return v == 0 ? nlohmann::json() : v;
  };
  return f;
}

// A field of the base part of a config (RunSettings inside TrainConfig or SimulateConfig).
template <typename Derived, typename Base>
ConfigField<Derived> base_field(const ConfigField<Base>& f) {
  return {f.name,
          f.value_name,
          f.help,
          [set = f.set](Derived& d, const std::string& v) { set(static_cast<Base&>(d), v); },
          [get = f.get](const Derived& d) { return get(static_cast<const Base&>(d)); },
          f.type,
          f.lo,
          f.hi,
          f.open_low};
}

// What a run is (engine/run_settings.h), as train, simulate and sweep all take it: strategy,
// model and head, outer and local iterations, batch, and each strategy's part, declared once
// (settings/run_fields.cc). The order is --help's.
const std::vector<ConfigField<RunSettings>>& run_fields();

// run_fields() as fields of a command's config C, which derives from RunSettings.
template <typename C>
std::vector<ConfigField<C>> shared_run_fields() {
  static_assert(std::is_base_of_v<RunSettings, C>);
  std::vector<ConfigField<C>> out;
  for (const auto& f : run_fields()) out.push_back(base_field<C>(f));
  return out;
}

// The settings that only some strategies use (train's, simulate's and sweep's tables), and
// those strategies. Settings not listed apply to every strategy.
inline const std::vector<std::pair<std::vector<std::string>, std::vector<Strategy>>>&
strategy_specific_settings() {
  using S = Strategy;
  static const std::vector<std::pair<std::vector<std::string>, std::vector<Strategy>>> table = {
      {{"sparsity", "keep", "t-freeze", "rho1", "rho2", "rho1-cap", "rho2-cap", "adaptive-rho",
        "lambda", "freeze-after", "masked-retraining", "eps-abs", "eps-rel", "union-growth",
        "masks"},
       {S::hsadmm, S::hsadmm_flat, S::hsadmm_rail}},
      {{"bucket-mib", "wire-dtype", "pipeline-buckets"}, {S::hsadmm, S::hsadmm_rail}},
      {{"bucket-cap-mb", "ddp-overlap", "ddp-overhead-passes"},
       {S::ddp, S::fp16, S::pactrain, S::cgx, S::powersgd}},
      {{"horovod-cycle-ms"}, {S::ddp, S::fp16}},
      {{"topk-ratio"}, {S::topk}},
      {{"prune-ratio", "ternary", "prune-method", "init", "stable-steps"}, {S::pactrain}},
      {{"bits", "bucket-size", "stochastic-rounding", "adaptive-bits", "adapt-every"}, {S::cgx}},
      {{"matrix-approximation-rank", "min-compression-rate", "start-powersgd-iter", "warm-start",
        "use-error-feedback", "orthogonalization-epsilon"},
       {S::powersgd}},
  };
  return table;
}

// Settings of which a run takes one: the second, when not 0, replaces the first (given
// together as flags, one would be ignored without a word).
inline const std::vector<std::pair<std::string, std::string>>& exclusive_settings() {
  static const std::vector<std::pair<std::string, std::string>> pairs = {
      {"local-epochs", "local-steps"},
  };
  return pairs;
}

// Settings that do something only beside another: (setting, the one it needs, not 0).
inline const std::vector<std::pair<std::string, std::string>>& dependent_settings() {
  static const std::vector<std::pair<std::string, std::string>> pairs = {
      {"checkpoint-minutes", "mtbf-hours"},
      {"checkpoint-seconds", "mtbf-hours"},
      {"restart-seconds", "mtbf-hours"},
  };
  return pairs;
}

// One line per setting in `given` (what the person set: flags and a hand-written --config, not
// a run's record) that none of `strategies` uses, e.g. "--sparsity applies to hsadmm,
// hsadmm-flat, hsadmm-rail, not ddp: ignored". Commands print them as warnings and go on:
// scripts run several strategies with one set of settings.
inline std::vector<std::string> settings_not_applying(const std::set<std::string>& given,
                                                      const std::vector<Strategy>& strategies) {
  std::vector<std::string> lines;
  for (const auto& [names, users] : strategy_specific_settings())
    for (const auto& name : names) {
      if (!given.count(name)) continue;
      bool used = false;
      for (Strategy s : strategies)
        used = used || std::find(users.begin(), users.end(), s) != users.end();
      if (used) continue;
      std::string who, chosen;
      for (Strategy s : users) who += (who.empty() ? "" : ", ") + std::string(strategy_name(s));
      for (Strategy s : strategies)
        chosen += (chosen.empty() ? "" : ", ") + std::string(strategy_name(s));
      lines.push_back("--" + name + " applies to " + who + ", not " + chosen + ": ignored");
    }
  return lines;
}

}  // namespace prunex::fields
