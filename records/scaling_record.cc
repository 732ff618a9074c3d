#include "records/scaling_record.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "engine/error.h"
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

std::vector<ScalingPoint> read_scaling_points(const nlohmann::json& doc,
                                              const std::string& origin) {
  std::vector<ScalingPoint> out;
  try {
    for (const auto& [name, pts] : doc.items()) {
      if (name == "missing" || !pts.is_array()) continue;
      for (const auto& q : pts)
        out.push_back(ScalingPoint{
            name, q.at("gpus").get<int>(), q.at("nodes").get<int>(),
            q.at("time_per_epoch_s").get<double>(), q.at("time_per_iteration_s").get<double>(),
            q.value("run_s", 0.0), q.value("expected_with_failures_s", 0.0),
            q.value("communication_share", 0.0), q.value("time_band", nlohmann::json()), -1, ""});
    }
    if (const auto m = doc.find("missing"); m != doc.end())
      for (const auto& q : *m) {
        ScalingPoint p;
        p.strategy = q.at("strategy").get<std::string>();
        p.gpus = q.at("gpus").get<int>();
        p.nodes = q.at("nodes").get<int>();
        p.index = q.at("point").get<long>();
        p.missing = q.at("why").get<std::string>();
        out.push_back(p);
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
