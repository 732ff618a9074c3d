// A run's metrics.json as the tools read it back: the iteration records (train --resume) and
// the masks `simulate --masks` replays (last densities, per-iteration payload masks) for
// small_cnn's layout with channel pruning.
#include "backends/simgrid/simulate_config.h"
#include "engine/error.h"
#include "engine/sparsity_spec.h"
#include "records/run_record.h"
#include "tests/fuzz/fuzz_input.h"
#include "workloads/layers/model_zoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded()) return 0;
  static const prunex::ModelLayout layout = prunex::make_layout("small_cnn", 10, 28, 1);
  static const prunex::SparsitySpec spec =
      prunex::SparsitySpec::build(layout, prunex::kChannel, prunex::KeepRate::of_fraction(0.5));
  try {
    if (doc.is_object() && doc.contains("iterations") && doc["iterations"].is_array())
      for (const auto& it : doc["iterations"]) (void)prunex::iteration_from_json(it, "fuzz.json");
  } catch (const prunex::UsageError&) {
  }
  try {
    (void)prunex::sim::last_densities(doc, "fuzz.json");
  } catch (const prunex::UsageError&) {
  }
  try {
    (void)prunex::sim::payload_masks(doc, layout, spec, "fuzz.json");
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
