#include "simulate/winners.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "engine/error.h"
#include "engine/text_parse.h"
#include "records/json_file.h"

namespace prunex::sim {

const std::vector<ConfigField<WinnersConfig>>& winners_fields() {
  static const std::vector<ConfigField<WinnersConfig>> fields = [] {
    std::vector<ConfigField<WinnersConfig>> f;
    for (const auto& s : sweep_fields())
      if (s.name != "nic-gbits") f.push_back(nested_field(s, &WinnersConfig::sweep));
    f.push_back(
        {"bandwidths", "GBITS,...",
         "each NIC's signalling rate in Gbit/s, one sweep per value (the fabric's switch links at "
         "the same rate, as --nic-gbits sets them)",
         [](WinnersConfig& c, const std::string& v) {
           c.bandwidths.clear();
           for (const auto& item : split_list(v)) {
             const double b = parse_double(item, "--bandwidths");
             PRUNEX_USAGE(b > 0, "--bandwidths takes Gbit/s above 0, got '", item, "'");
             PRUNEX_USAGE(
                 std::find(c.bandwidths.begin(), c.bandwidths.end(), b) == c.bandwidths.end(),
                 "--bandwidths names ", item, " twice");
             c.bandwidths.push_back(b);
           }
           PRUNEX_USAGE(!c.bandwidths.empty(), "--bandwidths is empty");
           std::sort(c.bandwidths.begin(), c.bandwidths.end());
         },
         [](const WinnersConfig& c) {
           nlohmann::json list = nlohmann::json::array();
           for (double b : c.bandwidths)
             list.push_back(b == std::floor(b) ? nlohmann::json(static_cast<long>(b))
                                               : nlohmann::json(b));
           return list;
         }});
    return f;
  }();
  return fields;
}

MeasuredAccuracy read_measured_accuracy(const std::string& path) {
  const nlohmann::json m = read_json_file(path, "--accuracy");
  const bool named = m.is_object() && m.contains("config") && m["config"].is_object() &&
                     m["config"].contains("strategy") && m["config"]["strategy"].is_string();
  const std::string strategy = named ? m["config"]["strategy"].get<std::string>() : "";
  PRUNEX_USAGE(!strategy.empty() && m.contains("iterations") && m["iterations"].is_array() &&
                   !m["iterations"].empty(),
               "--accuracy ", path,
               ": not a metrics.json of prunex train (no config.strategy or "
               "iterations)");
  const nlohmann::json& last = m["iterations"].back();
  PRUNEX_USAGE(last.contains("accuracy") && last["accuracy"].is_number(), "--accuracy ", path,
               ": its last iteration has no accuracy");
  return {strategy, path, last["accuracy"].get<double>()};
}

Crossover crossover(int gpus, const std::vector<double>& gbits, const std::vector<double>& ratios) {
  Crossover c;
  c.gpus = gpus;
  for (std::size_t i = 0; i + 1 < ratios.size(); ++i) {
    const double r1 = ratios[i], r2 = ratios[i + 1];
    if ((r1 > 1) == (r2 > 1)) continue;
    const double l1 = std::log(gbits[i]), l2 = std::log(gbits[i + 1]);
    c.crossings_gbits.push_back(std::exp(l1 + (l2 - l1) * (r1 - 1) / (r1 - r2)));
  }
  const bool low = !ratios.empty() && ratios.front() > 1;
  if (c.crossings_gbits.empty())
    c.pays = low ? "everywhere" : "nowhere";
  else if (c.crossings_gbits.size() == 1)
    c.pays = low ? "below" : "above";
  else
    c.pays = "between";
  return c;
}

namespace {

std::string verdict(const std::string& winner, double margin, const std::string& second,
                    double vs_ddp, const std::map<std::string, MeasuredAccuracy>& acc) {
  std::string line;
  if (second.empty()) return winner + " (the only strategy)";
  if (winner != "ddp" && vs_ddp > 0) {
    line = fmt::format("{}: {:.2f}x faster per epoch than ddp", winner, vs_ddp);
    const auto w = acc.find(winner), d = acc.find("ddp");
    if (w != acc.end() && d != acc.end())
      line += fmt::format(", at {:+.1f} points of accuracy in the measured runs",
                          100 * (w->second.accuracy - d->second.accuracy));
    if (second != "ddp") line += fmt::format(" (runner-up {}, {:.2f}x)", second, margin);
    return line;
  }
  return fmt::format("{}: {:.2f}x faster per epoch than the runner-up, {}", winner, margin, second);
}

}  // namespace

nlohmann::json winners_json(const std::vector<GridPoint>& points,
                            const std::vector<MeasuredAccuracy>& accuracy,
                            const nlohmann::json& config) {
  std::map<std::string, MeasuredAccuracy> acc;
  for (const auto& a : accuracy) acc[a.strategy] = a;
  std::vector<double> bandwidths;
  std::vector<int> sizes;
  std::vector<std::string> strategies;
  for (const auto& p : points) {
    if (std::find(bandwidths.begin(), bandwidths.end(), p.nic_gbits) == bandwidths.end())
      bandwidths.push_back(p.nic_gbits);
    if (std::find(sizes.begin(), sizes.end(), p.row.gpus) == sizes.end())
      sizes.push_back(p.row.gpus);
    if (std::find(strategies.begin(), strategies.end(), p.row.strategy) == strategies.end())
      strategies.push_back(p.row.strategy);
  }
  std::sort(bandwidths.begin(), bandwidths.end());
  std::sort(sizes.begin(), sizes.end());
  // cell (bandwidth, gpus) -> strategy -> row
  std::map<std::pair<double, int>, std::map<std::string, const ScalingPoint*>> cells;
  for (const auto& p : points) cells[{p.nic_gbits, p.row.gpus}][p.row.strategy] = &p.row;

  nlohmann::json out;
  out["bandwidths_gbits"] = bandwidths;
  out["gpus"] = sizes;
  out["strategies"] = strategies;
  out["cells"] = nlohmann::json::array();
  std::map<int, std::vector<double>> ratios;  // gpus -> t_ddp / t_hsadmm per bandwidth
  for (double b : bandwidths)
    for (int g : sizes) {
      const auto& rows = cells[{b, g}];
      std::vector<std::pair<double, std::string>> order;
      nlohmann::json times = nlohmann::json::object(), bands = nlohmann::json::object();
      for (const auto& [s, r] : rows) {
        order.emplace_back(r->epoch_s, s);
        times[s] = r->epoch_s;
        bands[s] = r->time_band;
      }
      std::sort(order.begin(), order.end());
      nlohmann::json cell = {{"nic_gbits", b}, {"gpus", g}, {"epoch_s", times}, {"bands", bands}};
      const std::string winner = order.front().second;
      const std::string second = order.size() > 1 ? order[1].second : "";
      const double margin = order.size() > 1 ? order[1].first / order.front().first : 1;
      const double vs_ddp = rows.count("ddp") ? rows.at("ddp")->epoch_s / order.front().first : 0;
      cell["winner"] = winner;
      cell["runner_up"] = second.empty() ? nlohmann::json() : nlohmann::json(second);
      cell["margin"] = margin;
      cell["ddp_over_winner"] = vs_ddp > 0 ? nlohmann::json(vs_ddp) : nlohmann::json();
      cell["verdict"] = verdict(winner, margin, second, vs_ddp, acc);
      out["cells"].push_back(cell);
      if (rows.count("ddp") && rows.count("hsadmm"))
        ratios[g].push_back(rows.at("ddp")->epoch_s / rows.at("hsadmm")->epoch_s);
    }
  out["crossovers"] = nlohmann::json::array();
  for (const auto& [g, r] : ratios) {
    const Crossover c = crossover(g, bandwidths, r);
    out["crossovers"].push_back(
        {{"gpus", g}, {"hsadmm_pays", c.pays}, {"crossings_gbits", c.crossings_gbits}});
  }
  out["accuracy"] = nlohmann::json::object();
  for (const auto& [s, a] : acc) out["accuracy"][s] = {{"accuracy", a.accuracy}, {"run", a.run}};
  out["config"] = config;
  return out;
}

}  // namespace prunex::sim
