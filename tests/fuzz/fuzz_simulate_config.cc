// `prunex simulate --config FILE` and `sweep --config FILE` (whose simulate settings are the
// same fields), and `validate --set`: the field table applied to arbitrary JSON as a
// hand-written file and as a run's record, then the checks before any work (make_spec) where
// the settings name a preset and a small shape.
#include "engine/error.h"
#include "simulate/simulate_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded()) return 0;
  for (bool record : {false, true}) {
    try {
      prunex::sim::SimulateConfig cfg;
      prunex::apply_config_json(prunex::sim::simulate_fields(), cfg, doc, "fuzz.json", record);
      // Building the spec reads the topology and lays out the model: kept to presets and
      // shapes that take milliseconds, so the fuzzer explores the settings, not SimGrid.
      if (cfg.topology.find('/') == std::string::npos && cfg.nodes <= 4 &&
          cfg.calibration.empty() && cfg.masks.empty())
        (void)prunex::sim::make_spec(cfg);
    } catch (const prunex::UsageError&) {
    }
  }
  return 0;
}
