// The options of the simulated platform (netmodel/platform_settings.h), declared once: simulate
// and sweep take them in their field tables (simulate_fields.cc), and validate, bench --backend
// sim, calibrate and reproduce register them as options (apps/platform_options.h).
#pragma once

#include <vector>

#include "netmodel/platform_settings.h"
#include "settings/config_fields.h"

namespace prunex::sim {

using PlatformField = ConfigField<PlatformSettings>;
const std::vector<PlatformField>& platform_fields();

}  // namespace prunex::sim
