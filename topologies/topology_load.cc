// load_topology and preset_names: presets are files under PRUNEX_PRESET_DIR.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"
#include "records/json_fields.h"
#include "records/json_file.h"
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
  return parse_topology(read_json_file(path.string(), "topology", origin), origin);
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
