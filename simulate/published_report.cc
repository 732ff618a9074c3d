// The published-measurement suite's report (published.h): rows, trends, error statistics,
// as JSON (results/published/published.json) and as the Markdown table the command prints.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/core.h>

#include "records/bench_rows.h"
#include "simulate/published.h"

namespace prunex::sim {

namespace {

// A per-GPU cost that rises when scaling efficiency falls: the step time, the time per image
// per GPU, the inverse bus bandwidth, the collective's time.
double per_gpu_cost(Quantity q, double value, int gpus) {
  switch (q) {
    case Quantity::seconds_per_iteration:
    case Quantity::seconds_per_op:
      return value;
    case Quantity::images_per_second:
      return gpus / value;
    case Quantity::busbw_GBps:
      return 1 / value;
  }
  return value;
}

// Within this band a change counts as flat in the trend check.
constexpr double kFlat = 0.01;

int trend_sign(double change) {
  return change > kFlat ? 1 : change < -kFlat ? -1 : 0;
}

// Scaling efficiency falls when the per-GPU cost rises.
const char* trend_word(int s) {
  return s > 0 ? "efficiency falls" : s < 0 ? "efficiency rises" : "flat";
}

// Smallest and largest GPU count among an entry's rows (ties: a held-out row first).
nlohmann::json trend_of(const std::vector<const PublishedRow*>& rows) {
  auto gpus = [](const PublishedRow* r) { return r->nodes * r->gpus_per_node; };
  const PublishedRow *lo = nullptr, *hi = nullptr;
  for (const auto* r : rows) {
    if (!lo || gpus(r) < gpus(lo) || (gpus(r) == gpus(lo) && lo->fit && !r->fit)) lo = r;
    if (!hi || gpus(r) > gpus(hi) || (gpus(r) == gpus(hi) && hi->fit && !r->fit)) hi = r;
  }
  if (!lo || gpus(lo) == gpus(hi)) return nullptr;
  auto change = [&](double a, double b) {
    return per_gpu_cost(hi->quantity, b, gpus(hi)) / per_gpu_cost(lo->quantity, a, gpus(lo)) - 1;
  };
  const double pub = change(lo->published, hi->published);
  const double pred = change(lo->predicted, hi->predicted);
  return {{"from", lo->label},
          {"to", hi->label},
          {"published_cost_change", pub},
          {"predicted_cost_change", pred},
          {"published", trend_word(trend_sign(pub))},
          {"predicted", trend_word(trend_sign(pred))},
          {"agrees", trend_sign(pub) == trend_sign(pred)}};
}

// How many held-out rows fall inside their band of `level`, each band from the rows of the
// other entries (leave one entry out): in all and per kind and speed.
nlohmann::json band_coverage(const BandTable& table, double level) {
  int rows = 0, inside = 0, without = 0;
  std::map<std::string, std::pair<int, int>> by_group;
  for (const Residual& r : table.rows()) {
    const ErrorBand b = table.band(r.key, level, r.entry);
    if (b.empty()) {
      ++without;
      continue;
    }
    const bool in = b.holds(r.log_ratio);
    ++rows;
    inside += in;
    auto& g = by_group[r.key.describe(2)];
    ++g.first;
    g.second += in;
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [where, g] : by_group)
    groups.push_back({{"where", where}, {"rows", g.first}, {"inside", g.second}});
  return {{"level", level},
          {"rows", rows},
          {"inside", inside},
          {"coverage", rows > 0 ? static_cast<double>(inside) / rows : 0.0},
          {"rows_without_band", without},
          {"by_group", groups}};
}

// The held-out rows' error by what binds them: compute, or the network (intra, inter,
// latency), which is what separates the strategies.
nlohmann::json by_binding(const std::vector<PublishedRow>& rows) {
  std::vector<PublishedRow> compute, network;
  for (const auto& r : rows)
    if (!r.fit) (r.binds == "compute" ? compute : network).push_back(r);
  return {
      {"compute", {{"rows", compute.size()}, {"geomean_abs_error", geomean_abs_error(compute)}}},
      {"network", {{"rows", network.size()}, {"geomean_abs_error", geomean_abs_error(network)}}}};
}

}  // namespace

nlohmann::json published_report(const std::vector<PublishedEntry>& suite,
                                const PublishedResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::vector<const PublishedRow*>> by_entry;
  std::vector<PublishedRow> training, collective;
  nlohmann::json over = nlohmann::json::array();
  const BandTable bands(held_out_residuals(result.rows));
  for (const auto& r : result.rows) {
    by_entry[r.entry].push_back(&r);
    const bool coll = r.quantity == Quantity::busbw_GBps || r.quantity == Quantity::seconds_per_op;
    (coll ? collective : training).push_back(r);
    nlohmann::json saved;
    for (int w = 0; w < 4; ++w) saved[kBindingResources[w]] = r.saved[w];
    rows.push_back({{"entry", r.entry},
                    {"point", r.label},
                    {"nodes", r.nodes},
                    {"gpus_per_node", r.gpus_per_node},
                    {"gpus", r.nodes * r.gpus_per_node},
                    {"quantity", quantity_name(r.quantity)},
                    {"published", r.published},
                    {"predicted", r.predicted},
                    {"error", r.error()},
                    {"fit", r.fit},
                    {"binds", r.binds},
                    {"step_s", r.step_s},
                    {"communication_share", r.communication_share},
                    {"saved_by_doubling_s", saved}});
    if (!r.fit) {
      const ErrorBand b = bands.band(r.key, kBandLevel, r.entry);
      rows.back()["band_without_entry"] = band_json(b, "the other entries' held-out rows");
      if (!b.empty()) rows.back()["inside_band"] = b.holds(r.log_ratio());
    }
    if (!r.fit && std::abs(r.error()) > 0.2)
      over.push_back({{"entry", r.entry}, {"point", r.label}, {"error", r.error()}});
  }
  nlohmann::json entries = nlohmann::json::array();
  int trends = 0, agree = 0, unmodelled = 0;
  // How much more the published per-GPU cost grows than the predicted one, per entry: a
  // model that misses a cost growing with the GPU count is short on most entries at once.
  std::vector<double> shortfall;
  for (const auto& e : suite) {
    nlohmann::json j = {{"id", e.id},
                        {"title", e.title},
                        {"source", e.source},
                        {"software", e.software},
                        {"quantity", quantity_name(e.quantity)},
                        {"points", e.points.size()}};
    if (!e.fit.empty()) j["fit"] = e.fit;
    if (!e.fit_from.empty()) j["fit_from"] = e.fit_from;
    for (const auto& [id, f] : result.fitted_flops)
      if (id == e.id) j["fitted_tflops"] = f / 1e12;
    if (!e.caveat.empty()) j["caveat"] = e.caveat;
    if (!e.not_modelled.empty()) {
      j["not_modelled"] = e.not_modelled;
      ++unmodelled;
    } else {
      j["trend"] = trend_of(by_entry[e.id]);
      if (!j["trend"].is_null()) {
        ++trends;
        agree += j["trend"]["agrees"].get<bool>();
        shortfall.push_back(j["trend"]["published_cost_change"].get<double>() -
                            j["trend"]["predicted_cost_change"].get<double>());
      }
    }
    entries.push_back(j);
  }
  const int held_out = static_cast<int>(
      std::count_if(result.rows.begin(), result.rows.end(), [](const auto& r) { return !r.fit; }));
  nlohmann::json summary = {
      {"held_out_rows", held_out},
      {"fit_rows", result.rows.size() - held_out},
      {"geomean_abs_error", geomean_abs_error(result.rows)},
      {"training_geomean_abs_error", geomean_abs_error(training)},
      {"collective_geomean_abs_error", geomean_abs_error(collective)},
      {"rows_over_20_percent", over},
      {"trends_checked", trends},
      {"trends_agreeing", agree},
      {"trends_short",
       std::count_if(shortfall.begin(), shortfall.end(), [](double d) { return d > 0; })},
      {"median_trend_shortfall", shortfall.empty() ? 0.0 : median(shortfall)},
      {"entries_not_modelled", unmodelled},
      {"by_binding", by_binding(result.rows)},
      {"band_coverage",
       {band_coverage(bands, 0.5), band_coverage(bands, kBandLevel), band_coverage(bands, 0.9)}}};
  return {{"rows", rows}, {"entries", entries}, {"summary", summary}};
}

namespace {

// The summary lines: what the suite says in a few lines, before its rows.
std::string summary_lines(const nlohmann::json& m) {
  std::string s = fmt::format(
      "held-out rows: {} (fit rows: {}); geometric-mean error {:.1f}% (training {:.1f}%, "
      "collectives {:.1f}%); rows beyond 20%: {}; efficiency trend right in sign on {} of {} "
      "entries\n"
      "by what binds: compute {} rows {:.1f}%; the network (intra, inter, latency) {} rows "
      "{:.1f}%\n"
      "scaling loss (per-GPU cost, fewest to most GPUs): predicted smaller than published on {} "
      "of {} entries, median shortfall {:+.1f} points\n",
      m["held_out_rows"].get<int>(), m["fit_rows"].get<int>(),
      100 * m["geomean_abs_error"].get<double>(),
      100 * m["training_geomean_abs_error"].get<double>(),
      100 * m["collective_geomean_abs_error"].get<double>(), m["rows_over_20_percent"].size(),
      m["trends_agreeing"].get<int>(), m["trends_checked"].get<int>(),
      m["by_binding"]["compute"]["rows"].get<int>(),
      100 * m["by_binding"]["compute"]["geomean_abs_error"].get<double>(),
      m["by_binding"]["network"]["rows"].get<int>(),
      100 * m["by_binding"]["network"]["geomean_abs_error"].get<double>(),
      m["trends_short"].get<int>(), m["trends_checked"].get<int>(),
      100 * m["median_trend_shortfall"].get<double>());
  for (const auto& c : m["band_coverage"])
    s += fmt::format(
        "{:.0f}% time bands (each row's from the other entries' held-out rows): {} of {} rows "
        "inside ({:.0f}%){}\n",
        100 * c["level"].get<double>(), c["inside"].get<int>(), c["rows"].get<int>(),
        100 * c["coverage"].get<double>(),
        c["rows_without_band"].get<int>() > 0
            ? fmt::format(", {} rows without a band", c["rows_without_band"].get<int>())
            : "");
  return s;
}

// One table row per point; "fit" marks the rows a factor was fitted on, "out" a measured time
// outside its band (from the other entries' rows).
std::string row_table(const nlohmann::json& rows) {
  std::string s =
      "| entry | point | GPUs | quantity | published | predicted | error | binds | time band "
      "|\n|---|---|---:|---|---:|---:|---:|---|---|\n";
  for (const auto& r : rows) {
    std::string band;
    if (r.contains("inside_band"))
      band = fmt::format("{:+.0f}%/{:+.0f}%{}", 100 * r["band_without_entry"]["low"].get<double>(),
                         100 * r["band_without_entry"]["high"].get<double>(),
                         r["inside_band"].get<bool>() ? "" : " out");
    s += fmt::format("| {} | {} | {} | {} | {:.4g} | {:.4g} | {}{:+.1f}% | {} | {} |\n",
                     r["entry"].get<std::string>(), r["point"].get<std::string>(),
                     r["gpus"].get<int>(), r["quantity"].get<std::string>(),
                     r["published"].get<double>(), r["predicted"].get<double>(),
                     r["fit"].get<bool>() ? "fit " : "", 100 * r["error"].get<double>(),
                     r["binds"].get<std::string>(), band);
  }
  return s;
}

// Entries not modelled, and entries whose trend the model gets wrong.
std::string entry_notes(const nlohmann::json& entries) {
  std::string notes;
  for (const auto& e : entries) {
    if (e.contains("not_modelled"))
      notes += fmt::format("- {}: not modelled: {}\n", e["id"].get<std::string>(),
                           e["not_modelled"].get<std::string>());
    else if (e.contains("trend") && !e["trend"].is_null() && !e["trend"]["agrees"].get<bool>())
      notes += fmt::format(
          "- {}: trend {} -> {}: published {} (per-GPU cost {:+.1f}%), predicted "
          "{} ({:+.1f}%)\n",
          e["id"].get<std::string>(), e["trend"]["from"].get<std::string>(),
          e["trend"]["to"].get<std::string>(), e["trend"]["published"].get<std::string>(),
          100 * e["trend"]["published_cost_change"].get<double>(),
          e["trend"]["predicted"].get<std::string>(),
          100 * e["trend"]["predicted_cost_change"].get<double>());
  }
  return notes;
}

}  // namespace

std::string published_markdown(const nlohmann::json& report) {
  std::string s = summary_lines(report["summary"]) + "\n" + row_table(report["rows"]);
  const std::string notes = entry_notes(report["entries"]);
  if (!notes.empty()) s += "\n" + notes;
  return s;
}

}  // namespace prunex::sim
