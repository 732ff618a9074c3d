#include "records/scaling_record.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "engine/error.h"
#include "engine/strategy.h"
#include "records/json_file.h"
#include "records/run_record.h"

namespace prunex {

ScalingGain scaling_gain(const std::vector<ScalingPoint>& points, const ScalingPoint& p) {
  const ScalingPoint* base = &p;
  for (const auto& q : points)
    if (q.missing.empty() && q.strategy == p.strategy && q.gpus < base->gpus) base = &q;
  ScalingGain g;
  g.speedup = base->epoch_s / p.epoch_s;
  g.efficiency = g.speedup / (static_cast<double>(p.gpus) / base->gpus);
  return g;
}

nlohmann::json scaling_json(const std::vector<ScalingPoint>& points, const nlohmann::json& config) {
  nlohmann::json doc = nlohmann::json::object();
  nlohmann::json missing = nlohmann::json::array();
  for (const ScalingPoint& p : points) {
    if (!p.missing.empty()) {
      missing.push_back({{"point", p.index},
                         {"strategy", p.strategy},
                         {"gpus", p.gpus},
                         {"nodes", p.nodes},
                         {"why", p.missing}});
      continue;
    }
    const ScalingGain g = scaling_gain(points, p);
    doc[p.strategy].push_back({{"gpus", p.gpus},
                               {"nodes", p.nodes},
                               {"time_per_epoch_s", p.epoch_s},
                               {"time_per_iteration_s", p.iteration_s},
                               {"communication_share", p.communication_share},
                               {"speedup", g.speedup},
                               {"efficiency", g.efficiency}});
    if (!p.time_band.is_null()) doc[p.strategy].back()["time_band"] = p.time_band;
    if (p.expected_s > 0) {
      doc[p.strategy].back()["run_s"] = p.run_s;
      doc[p.strategy].back()["expected_with_failures_s"] = p.expected_s;
    }
  }
  doc["config"] = config;
  if (!missing.empty()) doc["missing"] = missing;
  return doc;
}

namespace {

// A point's field, checked: a whole number in [1, 2^30], or a finite number > 0 (>= 0 when
// zero_ok; absent allowed and 0 unless required).
int whole_at_least_one(const nlohmann::json& q, const char* key, const std::string& where) {
  const auto it = q.find(key);
  PRUNEX_USAGE(it != q.end() && it->is_number_integer() && it->get<long long>() >= 1 &&
                   it->get<long long>() <= (1LL << 30),
               where, ": '", key, "' must be a whole number >= 1 (got ",
               it == q.end() ? std::string("nothing") : it->dump(), ")");
  return it->get<int>();
}
double positive(const nlohmann::json& q, const char* key, const std::string& where,
                bool required = true, bool zero_ok = false) {
  const auto it = q.find(key);
  if (!required && (it == q.end() || it->is_null())) return 0.0;
  PRUNEX_USAGE(it != q.end() && it->is_number() && std::isfinite(it->get<double>()) &&
                   (zero_ok ? it->get<double>() >= 0 : it->get<double>() > 0),
               where, ": '", key, "' must be a number ", zero_ok ? ">= 0" : "> 0", " (got ",
               it == q.end() ? std::string("nothing") : it->dump(), ")");
  return it->get<double>();
}

}  // namespace

std::vector<ScalingPoint> read_scaling_points(const nlohmann::json& doc,
                                              const std::string& origin) {
  std::vector<ScalingPoint> out;
  PRUNEX_USAGE(doc.is_object(), origin, ": not a scaling.json (expected a JSON object)");
  try {
    for (const auto& [name, pts] : doc.items()) {
      if (name == "config" || name == "missing" || name == "point" || name == "points") continue;
      PRUNEX_USAGE(pts.is_array(), origin, ": '", name, "' is not a list of points");
      (void)parse_strategy(name);  // UsageError: not a strategy
      for (const auto& q : pts) {
        const std::string where = origin + ": a point of " + name;
        PRUNEX_USAGE(q.is_object(), where, " is not an object");
        ScalingPoint p;
        p.strategy = name;
        p.gpus = whole_at_least_one(q, "gpus", where);
        p.nodes = whole_at_least_one(q, "nodes", where);
        p.epoch_s = positive(q, "time_per_epoch_s", where);
        p.iteration_s = positive(q, "time_per_iteration_s", where);
        p.run_s = positive(q, "run_s", where, false);
        p.expected_s = positive(q, "expected_with_failures_s", where, false);
        p.communication_share = positive(q, "communication_share", where, false, true);
        p.time_band = q.value("time_band", nlohmann::json());
        out.push_back(p);
      }
    }
    if (const auto m = doc.find("missing"); m != doc.end()) {
      PRUNEX_USAGE(m->is_array(), origin, ": 'missing' is not a list");
      for (const auto& q : *m) {
        PRUNEX_USAGE(q.is_object() && q.contains("point") && q["point"].is_number_integer() &&
                         q["point"].get<long long>() >= 0 && q.contains("strategy") &&
                         q["strategy"].is_string() && q.contains("why") && q["why"].is_string(),
                     origin, ": a missing point needs point (>= 0), strategy and why: ", q.dump());
        (void)parse_strategy(q["strategy"].get<std::string>());
        ScalingPoint p;
        p.strategy = q.at("strategy").get<std::string>();
        p.gpus = q.at("gpus").get<int>();
        p.nodes = q.at("nodes").get<int>();
        p.index = q.at("point").get<long>();
        p.missing = q.at("why").get<std::string>();
        out.push_back(p);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(origin + ": a point is malformed (" + e.what() + ")");
  }
  return out;
}

std::vector<ScalingPoint> merge_scaling_points(const std::string& dir, nlohmann::json& config) {
  namespace fs = std::filesystem;
  std::error_code ec;
  PRUNEX_USAGE(fs::is_directory(dir, ec), "--merge ", dir, ": not a folder");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (fs::is_regular_file(e.path() / "scaling.json", ec))
      files.push_back(e.path() / "scaling.json");
  PRUNEX_USAGE(!files.empty(), "--merge ", dir, ": no */scaling.json in it");
  std::sort(files.begin(), files.end());
  nlohmann::json base;
  std::map<long, ScalingPoint> by_index;
  long total = -1;
  for (const auto& f : files) {
    const nlohmann::json doc = read_json_file(f.string(), "--merge");
    PRUNEX_USAGE(doc.contains("point") && doc.contains("points") && doc.contains("config"),
                 f.string(), ": not the output of `prunex sweep --point I`");
    nlohmann::json c = doc["config"];
    c.erase("out");
    if (base.is_null()) {
      base = c;
      total = doc["points"].get<long>();
    }
    PRUNEX_USAGE(c == base && doc["points"].get<long>() == total, f.string(),
                 ": from another sweep (its config differs from ", files.front().string(), "'s)");
    const long index = doc["point"].get<long>();
    PRUNEX_USAGE(!by_index.count(index), f.string(), ": point ", index, " is there twice");
    const auto pts = read_scaling_points(doc, f.string());
    PRUNEX_USAGE(pts.size() == 1, f.string(), ": holds ", pts.size(), " points, not one");
    by_index[index] = pts.front();
    by_index[index].index = index;
  }
  config = base;
  std::vector<ScalingPoint> points;
  for (long i = 0; i < total; ++i) {
    if (by_index.count(i)) {
      points.push_back(by_index[i]);
    } else {
      ScalingPoint p;
      p.index = i;
      p.missing = "no scaling.json of it in " + dir + " (its task did not finish)";
      points.push_back(p);
    }
  }
  return points;
}

}  // namespace prunex
