// Error bands from the published suite's held-out residuals (error_band.h).
#include "simulate/error_band.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "engine/error.h"
#include "records/json_fields.h"
#include "records/json_file.h"

namespace prunex::sim {

namespace {

// Does `r` belong to the grouping of `key` at `depth` (BandKey::describe)?
bool same_group(const BandKey& r, const BandKey& key, int depth) {
  if (key.collective) return r.collective;  // collectives are one group
  if (depth == 0) return key.network_bound ? r.collective || r.network_bound : !r.collective;
  return !r.collective && r.network_bound == key.network_bound &&
         (depth < 2 || r.measured_speed == key.measured_speed) &&
         (depth < 3 || r.multi_node == key.multi_node) &&
         (depth < 4 || r.reduced_precision == key.reduced_precision);
}

// Reads one of two words into a flag; UsageError naming the key otherwise.
bool word_flag(JsonFields& f, const std::string& key, const char* yes, const char* no) {
  const std::string w = f.string(key);
  if (w == yes) return true;
  if (w != no) f.fail(key, fmt::format("is '{}', not {} or {}", w, yes, no));
  return false;
}

}  // namespace

std::string BandKey::describe(int depth) const {
  if (collective) return "collectives";
  if (depth == 0)
    return network_bound ? "network-bound training steps and collectives" : "training steps";
  std::string s = network_bound ? "network-bound training steps" : "compute-bound training steps";
  if (depth >= 2)
    s += measured_speed ? " at a GPU speed measured on the model" : " at a preset GPU speed";
  if (depth >= 3) s += multi_node ? " on more than one node" : " on one node";
  if (depth >= 4) s += reduced_precision ? " in tf32 or amp" : " in fp32";
  return s;
}

BandTable BandTable::read(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "residuals file");
  JsonFields top(doc, path, "", nullptr, "residuals file");
  const nlohmann::json& list = top.value("rows");
  if (!list.is_array()) top.fail("rows", "is not a list");
  top.optional_value("source");
  top.finish();
  std::vector<Residual> rows;
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonFields f(list[i], path, fmt::format("rows[{}]", i), nullptr, "residuals file");
    Residual r;
    r.entry = f.string("entry");
    r.key.collective = word_flag(f, "kind", "collective", "training");
    if (!r.key.collective) {
      r.key.network_bound = word_flag(f, "bound", "network", "compute");
      r.key.measured_speed = word_flag(f, "speed", "measured", "preset");
      r.key.multi_node = word_flag(f, "nodes", "more", "one");
      r.key.reduced_precision = word_flag(f, "precision", "reduced", "fp32");
    }
    r.log_ratio = f.number("log_ratio");
    if (!std::isfinite(r.log_ratio)) f.fail("log_ratio", "is not finite");
    f.finish();
    rows.push_back(std::move(r));
  }
  return BandTable(std::move(rows), path);
}

ErrorBand BandTable::band(const BandKey& key, double level, const std::string& leave_out) const {
  PRUNEX_CHECK(level > 0 && level < 1, "band level ", level, " outside (0, 1)");
  for (int depth = key.collective ? 0 : 4; depth >= 0; --depth) {
    std::vector<double> r;
    std::set<std::string> entries;
    for (const Residual& row : rows_)
      if (row.entry != leave_out && same_group(row.key, key, depth)) {
        r.push_back(row.log_ratio);
        entries.insert(row.entry);
      }
    if (static_cast<int>(r.size()) < kBandMinRows ||
        static_cast<int>(entries.size()) < kBandMinEntries)
      continue;
    std::sort(r.begin(), r.end());
    const double n = static_cast<double>(r.size()), a = (1 - level) / 2;
    const auto rank = [&](double k) {
      return static_cast<std::size_t>(std::clamp(k, 1.0, n)) - 1;  // 1-based rank to index
    };
    // A rank that is a whole number in exact arithmetic (0.9 x 20) must not round up or down
    // past it in floating point.
    constexpr double kTie = 1e-9;
    ErrorBand b;
    b.level = level;
    b.low = std::exp(-r[rank(std::ceil((1 - a) * (n + 1) - kTie))]) - 1;
    b.high = std::exp(-r[rank(std::floor(a * (n + 1) + kTie))]) - 1;
    b.rows = static_cast<int>(r.size());
    b.entries = static_cast<int>(entries.size());
    b.where = key.describe(depth);
    return b;
  }
  return {};
}

bool ErrorBand::holds(double log_ratio) const {
  const double measured = std::exp(-log_ratio) - 1;  // measured / predicted - 1
  return !empty() && low <= measured && measured <= high;
}

nlohmann::json residuals_json(const std::vector<Residual>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const Residual& r : rows) {
    nlohmann::json j = {{"entry", r.entry},
                        {"kind", r.key.collective ? "collective" : "training"},
                        {"log_ratio", r.log_ratio}};
    if (!r.key.collective) {
      j["bound"] = r.key.network_bound ? "network" : "compute";
      j["speed"] = r.key.measured_speed ? "measured" : "preset";
      j["nodes"] = r.key.multi_node ? "more" : "one";
      j["precision"] = r.key.reduced_precision ? "reduced" : "fp32";
    }
    list.push_back(j);
  }
  return {{"source",
           "prunex validate: the held-out rows of the published suite, log_ratio = "
           "ln(predicted time / measured time)"},
          {"rows", list}};
}

nlohmann::json band_json(const ErrorBand& b, const std::string& source) {
  if (b.empty()) return nullptr;
  return {{"level", b.level},     {"low", b.low},     {"high", b.high},  {"rows", b.rows},
          {"entries", b.entries}, {"where", b.where}, {"source", source}};
}

}  // namespace prunex::sim
