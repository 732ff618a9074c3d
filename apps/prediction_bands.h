// The error bands every predicted time carries (simulate/error_band.h): read once from the
// recorded validation run's residuals, validation/residuals.json of the source tree.
#pragma once

#include <string>

#include "simulate/error_band.h"

namespace prunex::cli {

// The table (no rows when the file cannot be found: the predictions then carry no band, and
// one warning line says why).
const sim::BandTable& prediction_bands();

// The band of a prediction with key `key`, as a record's JSON (null when there is none).
nlohmann::json prediction_band_json(const sim::BandKey& key);

}  // namespace prunex::cli
