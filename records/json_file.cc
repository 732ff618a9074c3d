#include "records/json_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/error.h"

namespace prunex {

nlohmann::json read_json_file(const std::string& path, const std::string& kind,
                              const std::string& origin_in) {
  const std::string origin = origin_in.empty() ? path : origin_in;
  const std::string prefix = kind + " " + origin + ": ";
  std::ifstream in(path);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec))
    throw UsageError(prefix + "cannot open file" + (origin == path ? "" : " " + path));
  // The keys leading to the value being read, so that a value the parser refuses (a number
  // beyond a double, say) is named by its field.
  std::vector<std::string> keys;
  const auto track = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& j) {
    // A document nested deeper than any the toolkit writes is refused while it is read: one
    // nested thousands deep would overflow the stack when the document is copied.
    if (depth > kMaxJsonDepth)
      throw UsageError(prefix + "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (event == nlohmann::json::parse_event_t::key) {
      keys.resize(static_cast<std::size_t>(std::max(0, depth - 1)));
      keys.push_back(j.get<std::string>());
    }
    return true;
  };
  try {
    return nlohmann::json::parse(in, track, true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what(), field;
    std::replace(what.begin(), what.end(), '\n', ' ');
    for (const auto& k : keys) field += (field.empty() ? "" : ".") + k;
    throw UsageError(prefix + "malformed JSON" + (field.empty() ? "" : " at " + field) + ": " +
                     what);
  }
}

std::string json_text_or(const nlohmann::json& row, const char* key, const std::string& fallback,
                         const std::string& where) {
  if (!row.is_object() || !row.contains(key) || row[key].is_null()) return fallback;
  PRUNEX_USAGE(row[key].is_string(), where, ": field '", key, "' is not a text");
  return row[key].get<std::string>();
}

double json_number_or(const nlohmann::json& row, const char* key, double fallback,
                      const std::string& where) {
  if (!row.is_object() || !row.contains(key) || row[key].is_null()) return fallback;
  PRUNEX_USAGE(row[key].is_number(), where, ": field '", key, "' is not a number");
  return row[key].get<double>();
}

}  // namespace prunex
