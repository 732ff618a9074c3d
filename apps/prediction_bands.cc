#include "apps/prediction_bands.h"

#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>

#include "host/source_tree.h"

#ifndef PRUNEX_VALIDATION_DIR
#error "PRUNEX_VALIDATION_DIR must be defined (CMakeLists.txt does it for the prunex target)"
#endif

namespace prunex::cli {

const sim::BandTable& prediction_bands() {
  static const sim::BandTable table = [] {
    std::string path;
    try {
      path = (source_tree_path("validation", "residuals.json", PRUNEX_VALIDATION_DIR) /
              "residuals.json")
                 .string();
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "prunex: warning: predictions carry no error band: {}\n", e.what());
      return sim::BandTable();
    }
    return sim::BandTable::read(path);
  }();
  return table;
}

nlohmann::json prediction_band_json(const sim::BandKey& key) {
  const sim::BandTable& t = prediction_bands();
  return sim::band_json(t.band(key), t.source());
}

}  // namespace prunex::cli
