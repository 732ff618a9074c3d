// Calibration files: reading `prunex bench --json` rows, and writing / reading
// calibration.json (format prunex-calibration-1). The fitting is in calibration.cc.
#include <cmath>
#include <tuple>

#include "calibration/calibration.h"
#include "engine/error.h"
#include "records/run_record.h"

namespace prunex::sim {
namespace {

double number(const nlohmann::json& j, const char* key, const std::string& where) {
  PRUNEX_USAGE(j.contains(key) && j[key].is_number(), where, ": field '", key,
               "' missing or not a number");
  return j[key].get<double>();
}

nlohmann::json fit_json(const TierFit& f) {
  return {{"latency_s", f.latency_s},
          {"bandwidth_Bps", f.bandwidth_Bps},
          {"points", f.points},
          {"min_bytes", f.min_bytes},
          {"max_bytes", f.max_bytes},
          {"max_abs_rel_err", f.max_abs_rel_err},
          {"geomean_rel_err", f.geomean_rel_err}};
}

TierFit read_fit(const nlohmann::json& f, const std::string& where) {
  TierFit t;
  t.latency_s = number(f, "latency_s", where);
  t.bandwidth_Bps = number(f, "bandwidth_Bps", where);
  t.min_bytes = f.value("min_bytes", 0.0);
  t.points = f.value("points", 0);
  PRUNEX_USAGE(t.latency_s >= 0 && t.bandwidth_Bps > 0, where,
               ": latency must be >= 0 and bandwidth > 0");
  return t;
}

}  // namespace

std::vector<BenchPoint> read_bench_points(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "bench file");
  PRUNEX_USAGE(j.is_array(), path, ": not a `prunex bench --json` row list");
  std::vector<BenchPoint> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& r = j[i];
    const std::string where = path + " row " + std::to_string(i);
    PRUNEX_USAGE(r.is_object(), where, ": not an object");
    const std::string group = r.value("group", std::string());
    if (group == "-") continue;  // a memory row
    PRUNEX_USAGE(r.value("backend", std::string()) == "mpi", where,
                 ": not a live measurement (backend '", r.value("backend", std::string()),
                 "'; rerun `prunex bench --backend mpi --json`)");
    BenchPoint p;
    p.file = path;
    try {
      p.op = parse_op(r.value("op", std::string()));
      p.group = parse_group(group);
    } catch (const UsageError& e) {
      throw UsageError(where + ": " + e.what());
    }
    p.nodes = static_cast<int>(number(r, "nodes", where));
    p.gpus_per_node = static_cast<int>(number(r, "gpus_per_node", where));
    p.ranks = static_cast<int>(number(r, "ranks", where));
    p.bytes = number(r, "bytes", where);
    p.seconds = number(r, "time_us", where) * 1e-6;
    PRUNEX_USAGE(
        p.nodes >= 1 && p.gpus_per_node >= 1 && p.ranks >= 1 && p.bytes > 0 && p.seconds > 0, where,
        ": sizes, ranks and time must be positive");
    PRUNEX_USAGE(r.value("wrong", 0L) == 0, where, ": the row has wrong elements");
    if (p.ranks >= 2) out.push_back(p);
  }
  PRUNEX_USAGE(!out.empty(), path, ": no collective rows of 2 or more ranks");
  return out;
}

nlohmann::json calibration_json(const Calibration& c, const std::vector<FittedPoint>& points) {
  nlohmann::json tiers = nlohmann::json::object();
  for (const auto& [tier, f] : c.tiers) tiers[tier] = fit_json(f);
  auto ops_json = [](const std::map<std::string, std::vector<TierFit>>& table) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, segments] : table)
      for (const auto& f : segments) j[key].push_back(fit_json(f));
    return j;
  };
  nlohmann::json j = {
      {"format", "prunex-calibration-1"},
      {"topology", c.topology},
      {"inputs", c.inputs},
      {"host_cores", c.host_cores},
      {"model",
       std::string("tiers: ring closed form; ops (op/group): ") +
           (c.algo == Algo::mpi ? "Open MPI's algorithm per size and rank count (latency terms "
                                  "and busiest-resource bytes of its schedule)"
                                : "ring closed form") +
           "; t = cL*latency + cB/bandwidth fitted by least relative squares; compute: 3 x forward "
           "FLOPs per sample per second of "
           "local_compute (slowest rank); shared host: a rank's speed scales by "
           "min(1, host_cores / ranks)"},
      {"tiers", tiers},
      {"op_fit", fit_mode_name(c.op_fit)},
      {"op_algo", algo_name(c.algo)},
      {"ops", ops_json(c.ops)}};
  if (!c.ops_warm.empty()) j["ops_warm"] = ops_json(c.ops_warm);
  j["links"] = c.links_relative ? "relative" : "absolute";
  if (c.links_relative)
    j["inter_base"] = {{"node_Bps", c.inter_base_Bps},
                       {"latency_s", c.inter_base_latency_s},
                       {"meaning",
                        "the fitted topology's node-to-node bandwidth (all rails) and one-way "
                        "latency: a simulated topology scales the inter tier by its own over "
                        "these"}};
  if (c.compute)
    j["compute"] = {{"flops_per_rank", c.compute->flops_per_rank},
                    {"ranks", c.compute->ranks},
                    {"iterations", c.compute->iterations},
                    {"source", c.compute->source}};
  if (c.memory)
    j["memory"] = {{"bandwidth_Bps", c.memory->bandwidth_Bps},
                   {"ranks", c.memory->ranks},
                   {"source", c.memory->source}};
  if (!c.memory_phases.empty()) {
    nlohmann::json phases = nlohmann::json::object();
    for (const auto& [phase, f] : c.memory_phases)
      phases[phase] = {
          {"bandwidth_Bps", f.bandwidth_Bps}, {"bytes", f.bytes}, {"seconds", f.seconds},
          {"iterations", f.iterations},       {"ranks", f.ranks}, {"source", f.source}};
    j["memory_phases"] = phases;
  }
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& fp : points)
    pts.push_back({{"file", fp.point.file},
                   {"op", std::string(collective_op_name(fp.point.op))},
                   {"group", std::string(group_name(fp.point.group))},
                   {"nodes", fp.point.nodes},
                   {"gpus_per_node", fp.point.gpus_per_node},
                   {"ranks", fp.point.ranks},
                   {"bytes", fp.point.bytes},
                   {"measured_s", fp.point.seconds},
                   {"predicted_s", fp.predicted_s},
                   {"rel_err", fp.rel_err()},
                   {"fitted", fp.fitted}});
  j["points"] = pts;
  return j;
}

Calibration read_calibration(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "--calibration");
  PRUNEX_USAGE(j.is_object() && j.value("format", std::string()) == "prunex-calibration-1", path,
               ": not a prunex calibration file (format prunex-calibration-1)");
  Calibration c;
  c.topology = j.value("topology", std::string());
  c.host_cores = j.value("host_cores", 0);
  c.inputs = j.value("inputs", std::vector<std::string>{});
  c.op_fit = parse_fit_mode(j.value("op_fit", std::string("line")), path + " op_fit");
  c.algo = parse_algo(j.value("op_algo", std::string("ring")));
  PRUNEX_USAGE(c.algo == Algo::ring || c.algo == Algo::mpi, path,
               ": op_algo must be ring or mpi, got ", algo_name(c.algo));
  const std::string links = j.value("links", std::string("absolute"));
  PRUNEX_USAGE(links == "absolute" || links == "relative", path,
               ": links must be absolute or relative, got ", links);
  c.links_relative = links == "relative";
  if (c.links_relative) {
    const nlohmann::json base = j.value("inter_base", nlohmann::json::object());
    c.inter_base_Bps = base.value("node_Bps", 0.0);
    c.inter_base_latency_s = base.value("latency_s", 0.0);
    PRUNEX_USAGE(c.inter_base_Bps > 0 && std::isfinite(c.inter_base_Bps), path,
                 ": links relative needs inter_base.node_Bps > 0");
  }
  const nlohmann::json tiers = j.value("tiers", nlohmann::json::object());
  const nlohmann::json ops = j.value("ops", nlohmann::json::object());
  const nlohmann::json ops_warm = j.value("ops_warm", nlohmann::json::object());
  PRUNEX_USAGE(tiers.is_object() && ops.is_object() && ops_warm.is_object(), path,
               ": tiers, ops and ops_warm must be objects");
  for (const auto& [tier, f] : tiers.items()) {
    const std::string where = path + " tiers." + tier;
    PRUNEX_USAGE(tier == "intra" || tier == "inter", where, ": unknown tier");
    c.tiers[tier] = read_fit(f, where);
  }
  for (const auto& [name, table, into] :
       {std::tuple{"ops", &ops, &c.ops}, std::tuple{"ops_warm", &ops_warm, &c.ops_warm}})
    for (const auto& [key, segs] : table->items()) {
      const std::string where = path + " " + name + "." + key;
      const auto slash = key.find('/');
      PRUNEX_USAGE(slash != std::string::npos, where, ": key must be op/group");
      try {
        parse_op(key.substr(0, slash));
        parse_group(key.substr(slash + 1));
      } catch (const UsageError& e) {
        throw UsageError(where + ": " + e.what());
      }
      PRUNEX_USAGE(segs.is_array() && !segs.empty(), where, ": not a list of size ranges");
      for (const auto& f : segs) {
        TierFit t = read_fit(f, where);
        t.max_bytes = number(f, "max_bytes", where);
        auto& fits = (*into)[key];
        PRUNEX_USAGE(fits.empty() || t.max_bytes > fits.back().max_bytes, where,
                     ": size ranges must be in increasing order");
        fits.push_back(t);
      }
    }
  if (j.contains("compute")) {
    const std::string where = path + " compute";
    ComputeFit f;
    f.flops_per_rank = number(j["compute"], "flops_per_rank", where);
    f.ranks = static_cast<int>(number(j["compute"], "ranks", where));
    f.source = j["compute"].value("source", std::string());
    PRUNEX_USAGE(f.flops_per_rank > 0 && f.ranks >= 1, where,
                 ": flops_per_rank and ranks must be positive");
    c.compute = f;
  }
  auto read_memory = [&](const nlohmann::json& m, const std::string& where) {
    MemoryFit f;
    f.bandwidth_Bps = number(m, "bandwidth_Bps", where);
    f.ranks = static_cast<int>(number(m, "ranks", where));
    f.source = m.value("source", std::string());
    PRUNEX_USAGE(f.bandwidth_Bps > 0 && f.ranks >= 1, where,
                 ": bandwidth_Bps and ranks must be positive");
    return f;
  };
  if (j.contains("memory")) c.memory = read_memory(j["memory"], path + " memory");
  if (j.contains("memory_phases")) {
    PRUNEX_USAGE(j["memory_phases"].is_object(), path, ": memory_phases must be an object");
    for (const auto& [phase, m] : j["memory_phases"].items()) {
      const std::string where = path + " memory_phases." + phase;
      MemoryFit f = read_memory(m, where);
      f.bytes = m.value("bytes", 0.0);
      f.seconds = m.value("seconds", 0.0);
      f.iterations = m.value("iterations", 0);
      c.memory_phases[phase] = f;
    }
  }
  PRUNEX_USAGE(
      !c.tiers.empty() || !c.ops.empty() || c.compute || c.memory || !c.memory_phases.empty(), path,
      ": calibrates nothing");
  return c;
}

}  // namespace prunex::sim
