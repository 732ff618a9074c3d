// load_topology and preset_names: presets are files under PRUNEX_PRESET_DIR.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"
#include "topologies/json_fields.h"
#include "topologies/topology_io.h"

#ifndef PRUNEX_PRESET_DIR
#error "PRUNEX_PRESET_DIR must be defined (CMake does it for prunex_topologies users)"
#endif

namespace prunex {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Topology load_file(const fs::path& path, const std::string& origin) {
  std::ifstream in(path);
  if (!in || fs::is_directory(path))
    throw UsageError(topology_error_prefix(origin) + "cannot open file " + path.string());
  nlohmann::json doc;
  // The keys leading to the value being read, so that a value the parser refuses (a number
  // beyond a double, say) is named by its field.
  std::vector<std::string> keys;
  const auto track = [&keys](int depth, nlohmann::json::parse_event_t event, nlohmann::json& j) {
    if (event == nlohmann::json::parse_event_t::key) {
      keys.resize(static_cast<std::size_t>(std::max(0, depth - 1)));
      keys.push_back(j.get<std::string>());
    }
    return true;
  };
  try {
    doc = nlohmann::json::parse(in, track, true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what(), field;
    std::replace(what.begin(), what.end(), '\n', ' ');
    for (const auto& k : keys) field += (field.empty() ? "" : ".") + k;
    throw UsageError(topology_error_prefix(origin) + "malformed JSON" +
                     (field.empty() ? "" : " at " + field) + ": " + what);
  }
  return parse_topology(doc, origin);
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(PRUNEX_PRESET_DIR, ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Topology load_topology(const std::string& name_or_file) {
  std::string list;
  for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
  PRUNEX_USAGE(!name_or_file.empty(), "empty topology name (presets: ", list, ")");
  const bool is_path =
      name_or_file.find('/') != std::string::npos || ends_with(name_or_file, ".json");
  if (!is_path) {
    const fs::path preset = fs::path(PRUNEX_PRESET_DIR) / (name_or_file + ".json");
    if (fs::is_regular_file(preset)) return load_file(preset, name_or_file + ".json");
    if (!fs::is_regular_file(name_or_file)) {
      throw UsageError("unknown topology '" + name_or_file + "' (presets: " + list +
                       "; or give a path to a .json file)");
    }
  }
  return load_file(name_or_file, name_or_file);
}

}  // namespace prunex
