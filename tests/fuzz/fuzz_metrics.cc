// A run's metrics.json as the tools read it back: the iteration records (train --resume),
// and `simulate --masks FILE` as the command line runs it (make_spec on small_cnn, localhost,
// 2 x 1, hsadmm: the recorded config, last densities and per-iteration payload masks).
#include "engine/error.h"
#include "records/run_record.h"
#include "simulate/simulate_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded()) return 0;
  try {
    if (doc.is_object() && doc.contains("iterations") && doc["iterations"].is_array())
      for (const auto& it : doc["iterations"]) (void)prunex::iteration_from_json(it, "fuzz.json");
  } catch (const prunex::UsageError&) {
  }
  const prunex::fuzz::InputFile file(data, size, "metrics");
  prunex::sim::SimulateConfig cfg;
  cfg.topology = "localhost";
  cfg.nodes = 2;
  cfg.gpus_per_node = 1;
  cfg.model = "small_cnn";
  cfg.iterations = 2;
  cfg.masks = file.path();
  try {
    (void)prunex::sim::make_spec(cfg, /*records=*/false);
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
