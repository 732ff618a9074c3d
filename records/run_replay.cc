#include "records/run_replay.h"

#include <vector>

#include "engine/error.h"

namespace prunex {

namespace {

std::map<std::string, double> densities_of(const nlohmann::json& d, const std::string& where) {
  std::map<std::string, double> out;
  for (const auto& [name, v] : d.items()) {
    PRUNEX_USAGE(v.is_number(), where, ": density of ", name, " is not a number");
    out[name] = v.get<double>();
  }
  return out;
}

}  // namespace

const nlohmann::json& json_member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  const auto it = j.find(key);
  return it == j.end() ? null : *it;
}

std::map<std::string, double> last_densities(const nlohmann::json& run, const std::string& where) {
  const auto& its = json_member(run, "iterations");
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  const auto& d = json_member(its.back(), "density");
  PRUNEX_USAGE(d.is_object() && !d.empty(), where,
               ": the last iteration records no density (not an hsadmm run?)");
  return densities_of(d, where);
}

RecordedMasks payload_masks(const nlohmann::json& run, const ModelLayout& layout,
                            const SparsitySpec& spec, const std::string& where) {
  const auto& its = json_member(run, "iterations");
  PRUNEX_USAGE(its.is_array() && !its.empty(), where, ": no iterations recorded");
  RecordedMasks out;
  std::vector<std::map<std::string, double>> seen;
  for (size_t k = 0; k < its.size(); ++k) {
    const char* key =
        json_member(its[k], "payload_density").is_null() ? "density" : "payload_density";
    const auto& d = json_member(its[k], key);
    PRUNEX_USAGE(d.is_object() && !d.empty(), where, ": iteration ", k + 1, " records no ", key,
                 " (not an hsadmm run?)");
    auto dens = densities_of(d, where);
    size_t i = 0;
    while (i < seen.size() && seen[i] != dens) ++i;
    if (i == seen.size()) {
      out.masks.push_back(mask_from_densities(layout, spec, dens, where));
      seen.push_back(std::move(dens));
    }
    out.of_iteration.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace prunex
