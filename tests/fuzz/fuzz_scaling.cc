// A sweep's scaling.json as `sweep --fill` and `--merge` read it back (read_scaling_points):
// the strategies' points and the missing ones; then written again (scaling_json), as --fill
// does with what it read.
#include "engine/error.h"
#include "records/scaling_record.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded() || !doc.is_object()) return 0;
  try {
    const auto points = prunex::read_scaling_points(doc, "fuzz.json");
    (void)prunex::scaling_json(points, nlohmann::json::object()).dump();
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
