// `prunex train --config FILE`: the config reader and the checks run before any work.
#include "engine/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "workloads/train/train_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded()) return 0;
  try {
    prunex::TrainConfig cfg;
    prunex::apply_config_json(cfg, doc, "fuzz.json");
    prunex::check_train_config(cfg);
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
