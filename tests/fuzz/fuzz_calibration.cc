// The files `prunex calibrate` reads and the one `simulate --calibration FILE` applies: the
// same bytes as a calibration.json (read, then applied to puhti for a 2 x 2 run), as
// `bench --json` rows (calibrate --from), as a memory bench (calibrate --memory) and as a live
// run's metrics.json (calibrate --steps: loaded, then its compute fitted).
#include "calibration/calibration.h"
#include "calibration/calibration_runs.h"
#include "engine/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "topologies/topology_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const prunex::fuzz::InputFile file(data, size, "calibration");
  try {
    prunex::Topology t = prunex::load_topology("puhti");
    prunex::sim::SimConfig cfg{2, 2};
    prunex::sim::apply_calibration_file(file.path(), t, cfg);
  } catch (const prunex::UsageError&) {
  }
  try {
    (void)prunex::sim::read_bench_points(file.path());
  } catch (const prunex::UsageError&) {
  }
  try {
    (void)prunex::sim::fit_memory(file.path());
  } catch (const prunex::UsageError&) {
  }
  try {
    const auto runs = prunex::sim::load_steps_runs({file.path()});
    (void)prunex::sim::fit_memory_phases(runs);
    (void)prunex::sim::fit_compute(runs);
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
