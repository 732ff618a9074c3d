#include "analysis/run_quantities.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis/report_rows.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "settings/config_fields.h"

namespace prunex {
namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& origin) {
  PRUNEX_USAGE(j.is_object() && j.contains(key), origin, ": missing '", key, "'");
  return j.at(key);
}

double number(const nlohmann::json& j, const char* key, const std::string& origin) {
  const auto& v = field(j, key, origin);
  PRUNEX_USAGE(v.is_number(), origin, ": '", key, "' is not a number");
  return v.get<double>();
}

const nlohmann::json& iterations(const nlohmann::json& metrics, const std::string& origin) {
  const auto& its = field(metrics, "iterations", origin);
  PRUNEX_USAGE(its.is_array() && !its.empty(), origin, ": no iterations recorded");
  return its;
}

}  // namespace

CommQuantities comm_quantities(const nlohmann::json& metrics, const std::string& origin) {
  const auto& its = iterations(metrics, origin);
  CommQuantities q;
  std::map<std::string, double> critical, rank_sum;
  for (const auto& it : its) {
    for (const auto& [name, ph] : field(it, "phases", origin).items()) {
      if (!is_communication(name.c_str())) continue;
      critical[name] += number(ph, "critical_path_s", origin);
      const auto& per_rank = field(ph, "per_rank_s", origin);
      PRUNEX_USAGE(per_rank.is_array() && !per_rank.empty(), origin, ": ", name,
                   ": per_rank_s is empty");
      for (const auto& s : per_rank) rank_sum[name] += s.get<double>();
    }
  }
  double total = 0, total_rank = 0;
  for (const auto& [name, s] : critical) total += s;
  for (const auto& [name, s] : rank_sum) total_rank += s;
  q.per_iteration_s = total / static_cast<double>(its.size());
  for (const auto& [name, s] : critical) {
    q.share_critical[name] = total > 0 ? s / total : 0.0;
    q.seconds[name] = s / static_cast<double>(its.size());
  }
  for (const auto& [name, s] : rank_sum)
    q.share_rank_mean[name] = total_rank > 0 ? s / total_rank : 0.0;
  const nlohmann::json cfg = canonical_config(field(metrics, "config", origin));
  q.plan_repeats = cfg.contains("plan-repeats") ? number(cfg, "plan-repeats", origin) : 1.0;
  return q;
}

ByteQuantities byte_quantities(const nlohmann::json& metrics, const std::string& origin) {
  const auto& its = iterations(metrics, origin);
  ByteQuantities q;
  q.iterations = static_cast<int>(its.size());
  for (const auto& it : its) {
    q.total_inter += number(field(it, "bytes", origin), "inter", origin);
    q.total_dense += number(it, "dense_inter_bytes", origin);
  }
  q.last_intra = number(field(its.back(), "bytes", origin), "intra", origin);
  q.last_inter = number(field(its.back(), "bytes", origin), "inter", origin);
  q.last_dense = number(its.back(), "dense_inter_bytes", origin);
  return q;
}

double trace_busy_seconds(const nlohmann::json& trace, const std::string& phase, int steps,
                          const std::string& origin) {
  PRUNEX_USAGE(steps >= 1, origin, ": steps must be >= 1");
  const auto& events = field(trace, "traceEvents", origin);
  PRUNEX_USAGE(events.is_array(), origin, ": traceEvents is not a list");
  std::vector<std::pair<double, double>> spans;  // microseconds
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || e.value("tid", -1) != 0 || e.value("name", "") != phase)
      continue;
    const double ts = number(e, "ts", origin);
    spans.emplace_back(ts, ts + number(e, "dur", origin));
  }
  std::sort(spans.begin(), spans.end());
  double busy = 0, end = -1e300;
  for (const auto& [a, b] : spans) {
    if (b <= end) continue;
    busy += b - std::max(a, end);
    end = b;
  }
  return busy * 1e-6 / steps;
}

std::map<int, ScalingReading> scaling_points(const nlohmann::json& scaling,
                                             const std::string& strategy,
                                             const std::string& origin) {
  const auto& pts = field(scaling, strategy.c_str(), origin);
  PRUNEX_USAGE(pts.is_array() && !pts.empty(), origin, ": no points for ", strategy);
  std::map<int, ScalingReading> out;
  for (const auto& p : pts) {
    ScalingReading s;
    s.gpus = static_cast<int>(number(p, "gpus", origin));
    s.time_per_epoch_s = number(p, "time_per_epoch_s", origin);
    s.speedup = number(p, "speedup", origin);
    s.efficiency = number(p, "efficiency", origin);
    s.communication_share = p.value("communication_share", 0.0);
    if (const auto b = p.find("time_band"); b != p.end() && !b->is_null()) {
      s.band_level = number(*b, "level", origin);
      s.band_low = number(*b, "low", origin);
      s.band_high = number(*b, "high", origin);
      s.band_where = b->value("where", "");
    }
    out[s.gpus] = s;
  }
  return out;
}

const ScalingReading& scaling_at(const std::map<int, ScalingReading>& points, int gpus,
                                 const std::string& strategy, const std::string& origin) {
  const auto it = points.find(gpus);
  PRUNEX_USAGE(it != points.end(), origin, ": ", strategy, " has no point at ", gpus, " GPUs");
  return it->second;
}

std::string band_text(const ScalingReading& q) {
  if (q.band_level <= 0) return "no error band recorded";
  return fmt::format("{:.0f}% band {}-{} s ({:+.0f}% / {:+.0f}%: {})", 100 * q.band_level,
                     sig4(q.time_per_epoch_s * (1 + q.band_low)),
                     sig4(q.time_per_epoch_s * (1 + q.band_high)), 100 * q.band_low,
                     100 * q.band_high, q.band_where);
}

}  // namespace prunex
