// Reading one JSON object of a file field by field: numbers may be plain or
// {"value": x, "source": "..."}, every key must be read once (leftovers are unknown keys),
// and every error is one UsageError line naming the kind of file, its origin and the dotted
// field path. Topology files and calibration files are read with it, after
// read_json_file (records/json_file.h) parsed them.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace prunex {

// Unit scale factors from file units to SI.
inline constexpr double kTera = 1e12;         // *_tflops -> FLOP/s
inline constexpr double kGigaBytes = 1e9;     // *_gbs -> B/s
inline constexpr double kGigaBits = 1e9 / 8;  // *_gbits -> B/s
inline constexpr double kMicro = 1e-6;        // *_us -> s

class JsonFields {
 public:
  // `path` is the dotted path of `obj` ("" for the document); `sources` collects sources;
  // `kind` names the file in errors ("topology ORIGIN: ...").
  JsonFields(const nlohmann::json& obj, std::string origin, std::string path,
             std::map<std::string, std::string>* sources, std::string kind = "topology");

  bool has(const std::string& key) const { return obj_.contains(key); }
  // A number times `scale`; a missing key is an error unless optional.
  double number(const std::string& key, double scale = 1.0);
  std::optional<double> optional_number(const std::string& key, double scale = 1.0);
  // A whole number (plain or with a source) in int range.
  int integer(const std::string& key);
  std::optional<int> optional_integer(const std::string& key);
  std::string string(const std::string& key);
  std::optional<std::string> optional_string(const std::string& key);
  // Rows of whole numbers >= 0 (plain or {"value": [[...]], "source": "..."}); rows may differ
  // in length (the caller checks the shape). Absent: empty.
  std::vector<std::vector<int>> optional_int_rows(const std::string& key);
  // A required sub-object, read with its own JsonFields.
  JsonFields object(const std::string& key);
  // Any value (an array, say), read as it is; nullptr when an optional one is absent.
  const nlohmann::json& value(const std::string& key) { return lookup(key); }
  const nlohmann::json* optional_value(const std::string& key);
  // Every key must have been read; names the first unknown one and the keys accepted.
  void finish() const;

  std::string field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  const nlohmann::json& lookup(const std::string& key);

  const nlohmann::json& obj_;
  std::string origin_;
  std::string path_;
  std::map<std::string, std::string>* sources_;
  std::string kind_;
  std::set<std::string> read_;
};

// "topology ORIGIN: " — the prefix of every topology error.
std::string topology_error_prefix(const std::string& origin);

}  // namespace prunex
