// The topology parser (topologies/topology_io.h) on arbitrary JSON, then validation and the
// derived numbers a `topology show` prints.
#include "engine/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "topologies/bisection.h"
#include "topologies/topology_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = prunex::fuzz::as_json(data, size);
  if (doc.is_discarded()) return 0;
  try {
    const prunex::Topology t = prunex::parse_topology(doc, "fuzz.json");
    prunex::check_topology(t, "fuzz.json");
    (void)prunex::bisection_bandwidth_Bps(t);
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
