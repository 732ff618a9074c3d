// Reading the published-measurement suite (published.h): every *.json of the folder, each
// field checked, every point's simulation set up once before anything runs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>

#include "engine/error.h"
#include "netmodel/sim_config.h"
#include "records/json_fields.h"
#include "records/json_file.h"
#include "simulate/published.h"
#include "simulate/simulate_config.h"
#include "topologies/topology_io.h"

namespace prunex::sim {

namespace fs = std::filesystem;

const char* quantity_name(Quantity q) {
  switch (q) {
    case Quantity::seconds_per_iteration:
      return "seconds_per_iteration";
    case Quantity::images_per_second:
      return "images_per_second";
    case Quantity::busbw_GBps:
      return "busbw_GBps";
    case Quantity::seconds_per_op:
      return "seconds_per_op";
  }
  return "?";
}

namespace {

Quantity parse_quantity(JsonFields& f, const std::string& key) {
  const std::string s = f.string(key);
  for (Quantity q : {Quantity::seconds_per_iteration, Quantity::images_per_second,
                     Quantity::busbw_GBps, Quantity::seconds_per_op})
    if (s == quantity_name(q)) return q;
  f.fail(key,
         "must be seconds_per_iteration, images_per_second, busbw_GBps or seconds_per_op (got '" +
             s + "')");
}

bool is_training(Quantity q) {
  return q == Quantity::seconds_per_iteration || q == Quantity::images_per_second;
}

// "repository path @ commit (url)" from the source object.
std::string source_text(JsonFields f) {
  std::string s;
  if (auto r = f.optional_string("repository")) s += *r;
  if (auto p = f.optional_string("path")) s += (s.empty() ? "" : ": ") + *p;
  if (auto c = f.optional_string("commit")) s += " @ " + *c;
  if (auto u = f.optional_string("url")) s += (s.empty() ? "" : " ") + *u;
  if (auto i = f.optional_string("issue")) s += (s.empty() ? "" : ", ") + *i;
  f.finish();
  PRUNEX_USAGE(!s.empty(), "suite file: source names nothing (repository, path, url or issue)");
  return s;
}

// A topology file named relative to the suite file becomes a path; preset names stay.
void resolve_topology(nlohmann::json& settings, const fs::path& dir) {
  if (!settings.contains("topology") || !settings["topology"].is_string()) return;
  const std::string t = settings["topology"];
  if (t.find('/') != std::string::npos || (t.size() > 5 && t.substr(t.size() - 5) == ".json"))
    settings["topology"] = (dir / t).lexically_normal().string();
}

PublishedPoint parse_point(JsonFields f) {
  PublishedPoint p;
  p.label = f.string("label");
  p.nodes = f.integer("nodes");
  p.gpus_per_node = f.integer("gpus_per_node");
  p.value = f.number("value");
  if (auto n = f.optional_string("note")) p.note = *n;
  if (auto n = f.optional_string("fits")) p.fits = *n;
  if (const auto* s = f.optional_value("simulate")) p.simulate = *s;
  if (p.nodes < 1) f.fail("nodes", "must be >= 1");
  if (p.gpus_per_node < 1) f.fail("gpus_per_node", "must be >= 1");
  if (!(p.value > 0)) f.fail("value", "must be > 0");
  if (!p.simulate.is_object()) f.fail("simulate", "must be an object of simulate settings");
  f.finish();
  return p;
}

// A collective entry's `bench`: the topology, the collective, its algorithm and size, nothing
// else (each checked here, as the entry is read).
nlohmann::json parse_bench(JsonFields f) {
  nlohmann::json b = nlohmann::json::object();
  b["topology"] = f.string("topology");
  b["op"] = f.string("op");
  b["algo"] = f.optional_string("algo").value_or("ring");
  try {
    (void)parse_op(b["op"]);
  } catch (const UsageError& e) {
    f.fail("op", e.what());
  }
  try {
    (void)parse_algo(b["algo"]);
  } catch (const UsageError& e) {
    f.fail("algo", e.what());
  }
  const double bytes = f.number("bytes");
  if (!(bytes >= 1 && bytes <= 1e15 && bytes == std::floor(bytes)))
    f.fail("bytes", "must be a whole number of bytes in [1, 1e15]");
  b["bytes"] = static_cast<std::uint64_t>(bytes);
  f.finish();
  return b;
}

// The simulate settings of one point: the entry's, the point's shape, its own overrides, and
// one step per iteration.
nlohmann::json point_settings(const PublishedEntry& e, const PublishedPoint& p) {
  nlohmann::json s = e.simulate;
  s["nodes"] = p.nodes;
  s["gpus-per-node"] = p.gpus_per_node;
  for (const auto& [k, v] : p.simulate.items()) s[k] = v;
  s["local-steps"] = 1;
  s["iterations"] = 1;
  return s;
}

void check_entry(PublishedEntry& e, const std::string& origin) {
  std::set<std::string> labels;
  for (const auto& p : e.points)
    PRUNEX_USAGE(labels.insert(p.label).second, origin, ": point '", p.label, "' twice in ", e.id);
  PRUNEX_USAGE(e.fit.empty() || labels.count(e.fit), origin, ": ", e.id, ": fit point '", e.fit,
               "' is not one of its points");
  if (!e.not_modelled.empty()) return;
  if (is_training(e.quantity)) {
    PRUNEX_USAGE(e.simulate.is_object(), origin, ": ", e.id,
                 ": a training entry needs `simulate` settings");
    PRUNEX_USAGE(e.bench.is_null(), origin, ": ", e.id,
                 ": a training entry takes `simulate`, not the `bench` of a collective entry");
    for (const auto& p : e.points) {
      SimulateConfig cfg;
      // A suite file is written by hand: a null setting is a mistake, not "unset".
      apply_config_json(simulate_fields(), cfg, point_settings(e, p),
                        origin + ": " + e.id + " point '" + p.label + "'", /*record=*/false);
      (void)make_spec(cfg, /*records=*/false);  // every check of `prunex simulate`, up front
    }
  } else {
    PRUNEX_USAGE(e.bench.is_object(), origin, ": ", e.id,
                 ": a collective entry needs `bench` {topology, op, bytes}");
    PRUNEX_USAGE(e.simulate.is_null(), origin, ": ", e.id,
                 ": a collective entry takes `bench`, not the `simulate` of a training entry");
    PRUNEX_USAGE(e.fit.empty(), origin, ": ", e.id, ": collective entries take no fit point");
    for (const auto& p : e.points)
      PRUNEX_USAGE(p.nodes * p.gpus_per_node >= 2, origin, ": ", e.id, " point '", p.label,
                   "': a collective needs 2 or more GPUs, the point has ",
                   p.nodes * p.gpus_per_node);
    (void)load_topology(e.bench.value("topology", ""));
  }
}

std::vector<PublishedEntry> parse_file(const fs::path& path) {
  const std::string origin = path.filename().string();
  const nlohmann::json doc = read_json_file(path.string(), "suite file", origin);
  JsonFields f(doc, origin, "", nullptr, "suite file");
  const std::string title = f.string("title");
  const std::string source = source_text(f.object("source"));
  const std::string software = f.string("software");
  const nlohmann::json& list = f.value("entries");
  if (!list.is_array() || list.empty()) f.fail("entries", "must be a non-empty array");
  f.finish();
  std::vector<PublishedEntry> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonFields g(list[i], origin, "entries[" + std::to_string(i) + "]", nullptr, "suite file");
    PublishedEntry e;
    e.file = origin;
    e.id = path.stem().string() + "/" + g.string("name");
    e.title = g.optional_string("title").value_or(title);
    e.source = source;
    e.software = g.optional_string("software").value_or(software);
    e.quantity = parse_quantity(g, "quantity");
    if (const auto* s = g.optional_value("simulate")) e.simulate = *s;
    if (g.has("bench")) e.bench = parse_bench(g.object("bench"));
    e.fit = g.optional_string("fit").value_or("");
    if (auto from = g.optional_string("fit_from")) e.fit_from = path.stem().string() + "/" + *from;
    if (!e.fit.empty() && !e.fit_from.empty())
      g.fail("fit_from", "an entry has fit or fit_from, not both");
    e.not_modelled = g.optional_string("not_modelled").value_or("");
    e.caveat = g.optional_string("caveat").value_or("");
    const nlohmann::json& pts = g.value("points");
    if (!pts.is_array() || pts.empty()) g.fail("points", "must be a non-empty array");
    for (std::size_t k = 0; k < pts.size(); ++k)
      e.points.push_back(
          parse_point(JsonFields(pts[k], origin, g.field("points") + "[" + std::to_string(k) + "]",
                                 nullptr, "suite file")));
    g.finish();
    resolve_topology(e.simulate, path.parent_path());
    resolve_topology(e.bench, path.parent_path());
    check_entry(e, origin);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

nlohmann::json published_point_settings(const PublishedEntry& e, const PublishedPoint& p) {
  return point_settings(e, p);
}

std::vector<PublishedEntry> load_published_suite(const std::string& dir,
                                                 const std::vector<std::string>& only) {
  // A suite file named as such (FILE.json, or a path to it) stands for its entries: ids
  // start with the file's stem and a slash.
  std::vector<std::string> wanted;
  for (const auto& w : only)
    wanted.push_back(fs::path(w).extension() == ".json" ? fs::path(w).stem().string() + "/" : w);
  std::error_code ec;
  PRUNEX_USAGE(fs::is_directory(dir, ec), "--suite ", dir, ": no such folder");
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".json" && f.is_regular_file()) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  PRUNEX_USAGE(!files.empty(), "--suite ", dir, ": no *.json suite files");
  std::vector<PublishedEntry> all, picked;
  std::set<std::string> ids;
  for (const auto& f : files)
    for (auto& e : parse_file(f)) {
      PRUNEX_USAGE(ids.insert(e.id).second, f.filename().string(), ": entry ", e.id, " twice");
      all.push_back(std::move(e));
    }
  for (const auto& w : wanted) {
    const bool any =
        std::any_of(all.begin(), all.end(), [&](const auto& e) { return e.id.rfind(w, 0) == 0; });
    PRUNEX_USAGE(any, "--only: no entry is or starts with '", w, "' (ids are FILE/NAME; --list)");
  }
  // An entry whose speed comes from another needs that one (with a fit of its own) first.
  std::set<std::string> fitted_before;
  for (const auto& e : all) {
    PRUNEX_USAGE(e.fit_from.empty() || fitted_before.count(e.fit_from), e.file, ": ", e.id,
                 ": fit_from names no earlier entry with a fit of its own (", e.fit_from, ")");
    if (!e.fit.empty()) fitted_before.insert(e.id);
  }
  auto wanted_id = [&](const std::string& id) {
    return wanted.empty() || std::any_of(wanted.begin(), wanted.end(),
                                         [&](const auto& w) { return id.rfind(w, 0) == 0; });
  };
  std::set<std::string> needed;
  for (const auto& e : all)
    if (wanted_id(e.id)) {
      needed.insert(e.id);
      if (!e.fit_from.empty()) needed.insert(e.fit_from);
    }
  for (auto& e : all)
    if (needed.count(e.id)) picked.push_back(std::move(e));
  return picked;
}

}  // namespace prunex::sim
