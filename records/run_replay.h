// Replaying a live run from its metrics.json: which layers it kept how densely, and the masks
// that compacted each iteration's inter-node payload. `prunex simulate --masks` and
// `prunex calibrate --steps` rebuild hsadmm's plans from them.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/layer_layout.h"
#include "engine/simulated_masks.h"
#include "engine/sparsity_spec.h"

namespace prunex {

// j[key] when j is an object that has it, else null (json::value() throws on a non-object: a
// metrics.json that is a number or an array must be a usage error, not a crash).
const nlohmann::json& json_member(const nlohmann::json& j, const char* key);

// Run replay (a live run's metrics.json): the last iteration's "density" map (pruned layer ->
// kept fraction), and the masks that compacted each iteration's inter-node payload in an
// hsadmm run ("payload_density"; for runs that predate it, each iteration's "density").
// UsageError naming `where` when the run has none.
std::map<std::string, double> last_densities(const nlohmann::json& run, const std::string& where);
RecordedMasks payload_masks(const nlohmann::json& run, const ModelLayout& layout,
                            const SparsitySpec& spec, const std::string& where);

}  // namespace prunex
