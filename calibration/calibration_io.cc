// Calibration files: reading `prunex bench --json` rows, and writing / reading
// calibration.json (format prunex-calibration-1). The fitting is in calibration.cc.
#include <cmath>
#include <tuple>

#include "calibration/calibration.h"
#include "engine/error.h"
#include "records/json_fields.h"
#include "records/json_file.h"
#include "records/run_record.h"
#include "records/run_replay.h"

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
          {"geomean_rel_err", f.geomean_rel_err},
          {"nodes", f.nodes},
          {"gpus_per_node", f.gpus_per_node}};
}

// A fit as calibration_json writes it (fit_json; max_bytes in op ranges); what the fit
// reports about itself is read and checked as a number but not used.
TierFit read_fit(JsonFields f, bool op_range) {
  TierFit t;
  t.latency_s = f.number("latency_s");
  t.bandwidth_Bps = f.number("bandwidth_Bps");
  t.min_bytes = f.optional_number("min_bytes").value_or(0.0);
  t.points = f.optional_integer("points").value_or(0);
  const auto max_bytes = f.optional_number("max_bytes");
  if (op_range && !max_bytes) f.fail("max_bytes", "is missing");
  t.max_bytes = max_bytes.value_or(0.0);
  // The rows' shape (0: several, or a file written before it was recorded).
  t.nodes = static_cast<int>(f.optional_integer("nodes").value_or(0));
  t.gpus_per_node = static_cast<int>(f.optional_integer("gpus_per_node").value_or(0));
  if (t.nodes < 0) f.fail("nodes", "must be >= 0");
  if (t.gpus_per_node < 0) f.fail("gpus_per_node", "must be >= 0");
  f.optional_value("max_abs_rel_err");  // the fit's report (null when not finite)
  f.optional_value("geomean_rel_err");
  if (!(t.latency_s >= 0)) f.fail("latency_s", "must be >= 0");
  if (!(t.bandwidth_Bps > 0)) f.fail("bandwidth_Bps", "must be > 0");
  f.finish();
  return t;
}

// memory, memory_phases.PHASE, compute: a speed and the ranks it was measured on.
MemoryFit read_memory(JsonFields f) {
  MemoryFit m;
  m.bandwidth_Bps = f.number("bandwidth_Bps");
  m.ranks = f.integer("ranks");
  m.source = f.optional_string("source").value_or("");
  m.bytes = f.optional_number("bytes").value_or(0.0);
  m.seconds = f.optional_number("seconds").value_or(0.0);
  m.iterations = f.optional_integer("iterations").value_or(0);
  if (!(m.bandwidth_Bps > 0)) f.fail("bandwidth_Bps", "must be > 0");
  if (m.ranks < 1) f.fail("ranks", "must be >= 1");
  f.finish();
  return m;
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
    const std::string group = json_text_or(r, "group", "", where);
    if (group == "-") continue;  // a memory row
    // Live collectives: MPI's, or NCCL's on GPUs (the same harness and rows).
    const std::string backend = json_text_or(r, "backend", "", where);
    PRUNEX_USAGE(backend == "mpi" || backend == "nccl", where,
                 ": not a live measurement (backend '", backend,
                 "'; rerun `prunex bench --backend mpi --json` or `--backend nccl`)");
    BenchPoint p;
    p.file = path;
    const std::string op = json_text_or(r, "op", "", where);
    try {
      p.op = parse_op(op);
      p.group = parse_group(group);
    } catch (const UsageError& e) {
      throw UsageError(where + ": " + e.what());
    }
    auto count = [&](const char* key) {  // checked before the cast to int
      const double x = number(r, key, where);
      PRUNEX_USAGE(x >= 1 && x <= 1 << 24, where, ": field '", key, "' must be a count in [1, ",
                   1 << 24, "] (got ", x, ")");
      return static_cast<int>(x);
    };
    p.nodes = count("nodes");
    p.gpus_per_node = count("gpus_per_node");
    p.ranks = count("ranks");
    p.bytes = number(r, "bytes", where);
    p.seconds = number(r, "time_us", where) * 1e-6;
    PRUNEX_USAGE(p.bytes > 0 && p.seconds > 0, where, ": sizes and time must be positive");
    PRUNEX_USAGE(json_number_or(r, "wrong", 0, where) == 0, where, ": the row has wrong elements");
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
  if (c.compute) {
    j["compute"] = {{"flops_per_rank", c.compute->flops_per_rank},
                    {"ranks", c.compute->ranks},
                    {"iterations", c.compute->iterations},
                    {"source", c.compute->source}};
    if (c.compute->step_overhead_s > 0)
      j["compute"]["step_overhead_s"] = c.compute->step_overhead_s;
  }
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

namespace {

// The file's frame: topology, host cores, inputs, fit mode, algorithm, links and their base.
void read_frame(JsonFields& f, const std::string& path, Calibration& c) {
  c.topology = f.optional_string("topology").value_or("");
  c.host_cores = f.optional_integer("host_cores").value_or(0);
  if (const auto* inputs = f.optional_value("inputs")) {
    if (!inputs->is_array()) f.fail("inputs", "must be a list of file names");
    for (const auto& in : *inputs) {
      if (!in.is_string()) f.fail("inputs", "must be a list of file names");
      c.inputs.push_back(in.get<std::string>());
    }
  }
  f.optional_string("model");  // the fit's description, for readers
  if (const auto* pts = f.optional_value("points"); pts && !pts->is_array())
    f.fail("points", "must be a list (the fitted points, for readers)");
  c.op_fit = parse_fit_mode(f.optional_string("op_fit").value_or("line"), path + " op_fit");
  c.algo = parse_algo(f.optional_string("op_algo").value_or("ring"));
  if (c.algo != Algo::ring && c.algo != Algo::mpi) f.fail("op_algo", "must be ring or mpi");
  const std::string links = f.optional_string("links").value_or("absolute");
  if (links != "absolute" && links != "relative") f.fail("links", "must be absolute or relative");
  c.links_relative = links == "relative";
  if (f.has("inter_base")) {
    JsonFields base = f.object("inter_base");
    c.inter_base_Bps = base.number("node_Bps");
    c.inter_base_latency_s = base.number("latency_s");
    base.optional_string("meaning");
    base.finish();
  }
  if (c.links_relative && !(c.inter_base_Bps > 0 && std::isfinite(c.inter_base_Bps)))
    f.fail("inter_base.node_Bps", "must be > 0 with links relative");
}

// A table of per-op fits ("allreduce/intra": size ranges in increasing order).
void read_op_table(JsonFields& f, const std::string& path, const char* name,
                   std::map<std::string, std::vector<TierFit>>& into) {
  JsonFields table = f.object(name);
  for (const auto& [key, segs] : f.value(name).items()) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) table.fail(key, "is not op/group");
    try {
      parse_op(key.substr(0, slash));
      parse_group(key.substr(slash + 1));
    } catch (const UsageError& e) {
      table.fail(key, e.what());
    }
    const nlohmann::json& ranges = table.value(key);
    if (!ranges.is_array() || ranges.empty()) table.fail(key, "must be a list of size ranges");
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (!ranges[i].is_object()) table.fail(key, "must be a list of objects");
      TierFit t =
          read_fit(JsonFields(ranges[i], path, table.field(key) + "[" + std::to_string(i) + "]",
                              nullptr, "calibration"),
                   true);
      auto& fits = into[key];
      if (!fits.empty() && !(t.max_bytes > fits.back().max_bytes))
        table.fail(key, "size ranges must be in increasing order of max_bytes");
      fits.push_back(t);
    }
  }
  table.finish();
}

ComputeFit read_compute(JsonFields cf) {
  ComputeFit fit;
  fit.flops_per_rank = cf.number("flops_per_rank");
  fit.ranks = cf.integer("ranks");
  fit.iterations = cf.optional_integer("iterations").value_or(0);
  fit.source = cf.optional_string("source").value_or("");
  fit.step_overhead_s = cf.optional_number("step_overhead_s").value_or(0);
  if (!(fit.flops_per_rank > 0)) cf.fail("flops_per_rank", "must be > 0");
  if (!(fit.step_overhead_s >= 0)) cf.fail("step_overhead_s", "must be >= 0");
  if (fit.ranks < 1) cf.fail("ranks", "must be >= 1");
  cf.finish();
  return fit;
}

}  // namespace

Calibration read_calibration(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "--calibration");
  const nlohmann::json& format = json_member(j, "format");
  PRUNEX_USAGE(format.is_string() && format.get<std::string>() == "prunex-calibration-1", path,
               ": not a prunex calibration file (format prunex-calibration-1)");
  JsonFields f(j, path, "", nullptr, "calibration");
  f.string("format");
  Calibration c;
  read_frame(f, path, c);
  if (f.has("tiers")) {
    JsonFields tiers = f.object("tiers");
    for (const char* tier : {"intra", "inter"})
      if (tiers.has(tier)) c.tiers[tier] = read_fit(tiers.object(tier), false);
    tiers.finish();
  }
  if (f.has("ops")) read_op_table(f, path, "ops", c.ops);
  if (f.has("ops_warm")) read_op_table(f, path, "ops_warm", c.ops_warm);
  if (f.has("compute")) c.compute = read_compute(f.object("compute"));
  if (f.has("memory")) c.memory = read_memory(f.object("memory"));
  if (f.has("memory_phases")) {
    JsonFields phases = f.object("memory_phases");
    for (const auto& [phase, m] : f.value("memory_phases").items())
      c.memory_phases[phase] = read_memory(phases.object(phase));
    phases.finish();
  }
  f.finish();
  PRUNEX_USAGE(
      !c.tiers.empty() || !c.ops.empty() || c.compute || c.memory || !c.memory_phases.empty(), path,
      ": calibrates nothing");
  return c;
}

}  // namespace prunex::sim
