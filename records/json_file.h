// Every JSON file the toolkit reads (topologies, --config, calibration.json, bench rows,
// metrics.json for --steps and --masks, scaling.json for --merge, checkpoint manifests,
// reproduce's inputs) is parsed here, once: a file that cannot be opened or is not JSON is one
// UsageError line naming the kind of file, its origin and, for a value the parser refuses,
// the dotted key path leading to it ("topology a.json: malformed JSON at
// nic.bandwidth_gbits.value: ..."). What the document must hold is the reader's own check:
// JsonFields (records/json_fields.h) for topologies and calibration files, the field tables
// for --config, plan_settings for a run's record.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace prunex {

// The deepest nesting a file may have (objects and arrays); the toolkit's own files stay
// under 10.
inline constexpr int kMaxJsonDepth = 64;

// `kind` names the file in errors ("topology", "--config", "bench file"); `origin` is how the
// user named it (a preset's name), by default the path.
nlohmann::json read_json_file(const std::string& path, const std::string& kind,
                              const std::string& origin = "");

// A row's optional field, for readers of rows another command wrote (bench --json, the
// compaction bench): absent or null gives the fallback; a value of another type is one
// UsageError line, "WHERE: field 'KEY' is not a text" (or "not a number").
std::string json_text_or(const nlohmann::json& row, const char* key, const std::string& fallback,
                         const std::string& where);
double json_number_or(const nlohmann::json& row, const char* key, double fallback,
                      const std::string& where);

}  // namespace prunex
