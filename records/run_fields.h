// The settings `prunex train` and `prunex simulate` (and sweep) share, declared once: flag name
// (= JSON key), value name, help, parser with bounds, recorded value. Both configs name the
// members alike (TrainConfig, SimulateConfig), so one template serves both field tables; each
// command adds its own fields and its own cross-field checks. The builders below are the
// typed fields every table uses.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/sparsity_spec.h"
#include "engine/strategy.h"
#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "records/config_fields.h"

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

// What a run is, as train and simulate both take it: strategy, model and head, outer and
// local iterations, batch, H-SADMM's sparsity, keep rate, freeze and buckets, and the peers'
// settings.
template <typename C>
std::vector<ConfigField<C>> shared_run_fields() {
  return {
      {"strategy", "S", "hsadmm, hsadmm-flat, hsadmm-rail, ddp, topk, fp16, pactrain or cgx",
       [](C& c, const std::string& v) { c.strategy = parse_strategy(v); },
       [](const C& c) { return nlohmann::json(std::string(strategy_name(c.strategy))); }},
      text<C>("model", "M", "a model of the zoo (prunex model-info)", &C::model, true),
      whole<C>("classes", "C", "classes of the model head", &C::classes, 1, kMaxCount),
      whole<C>("iterations", "N", "outer iterations (ddp and the peers: rounds of local steps)",
               &C::iterations, 1, kMaxCount),
      whole<C>("local-epochs", "E", "local epochs per outer iteration", &C::local_epochs, 1,
               kMaxCount),
      whole<C>("local-steps", "N",
               "local steps (full batches) per outer iteration instead of --local-epochs "
               "(0: epochs)",
               &C::local_steps, 0, kMaxCount),
      whole<C>("batch", "B", "mini-batch per rank / GPU (paper: 128)", &C::batch, 1, kMaxCount),
      {"sparsity", "KINDS", "filter, channel, shape, or a combination like filter+channel",
       [](C& c, const std::string& v) {
         parse_sparsity_kinds(v);
         c.sparsity = v;
       },
       [](const C& c) { return nlohmann::json(c.sparsity); }},
      real<C>("keep", "F", "kept fraction of groups in pruned layers, in (0, 1]", &C::keep, 0, 1,
              true),
      whole<C>("t-freeze", "T", "freeze the mask after iteration T (no mask_sync after); 0: never",
               &C::t_freeze, 0, kMaxCount),
      real<C>("bucket-mib", "MIB", "H-SADMM inter-node bucket size in MiB", &C::bucket_mib, 0, 4096,
              true),
      real<C>("bucket-cap-mb", "MB",
              "ddp, fp16, pactrain, cgx: PyTorch DDP's bucket_cap_mb, the gradient buckets' size "
              "in MiB after the first (1 MiB) one",
              &C::bucket_cap_mb, 0, 4096, true),
      {"wire-dtype", "T",
       "hsadmm / hsadmm-rail: the compact inter-node payload's type, fp32, bf16 or fp16 "
       "(converted in pack and unpack, summed in that type)",
       [](C& c, const std::string& v) {
         parse_wire_dtype(v);
         c.wire_dtype = v;
       },
       [](const C& c) { return nlohmann::json(c.wire_dtype); }},
      boolean<C>("pipeline-buckets",
                 "hsadmm / hsadmm-rail: bucket b's inter-node all-reduce runs while b + 1 is "
                 "packed and b - 1 unpacked",
                 &C::pipeline_buckets),
      real<C>("topk-ratio", "R", "topk: kept fraction of each layer's gradient", &C::topk_ratio, 0,
              1, true),
      real<C>("prune-ratio", "R", "pactrain: pruned fraction of every conv and fc weight, [0, 1)",
              &C::prune_ratio, 0, 0.999999, false),
      boolean<C>("ternary",
                 "pactrain: TernGrad levels on the wire (MAX all-reduce of a scaler per bucket, "
                 "int8 SUM of the levels; at most 127 ranks)",
                 &C::ternary),
      whole<C>("bits", "B", "cgx: quantization bits per value (1-8)", &C::bits, 1, 8),
      whole<C>("bucket-size", "N", "cgx: values per quantization bucket (two fp32 metadata each)",
               &C::bucket_size, 1, kMaxCount),
  };
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
       {S::ddp, S::fp16, S::pactrain, S::cgx}},
      {{"horovod-cycle-ms"}, {S::ddp, S::fp16}},
      {{"topk-ratio"}, {S::topk}},
      {{"prune-ratio", "ternary", "prune-method", "init", "stable-steps"}, {S::pactrain}},
      {{"bits", "bucket-size", "stochastic-rounding", "adaptive-bits", "adapt-every"}, {S::cgx}},
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
