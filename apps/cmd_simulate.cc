// `prunex simulate`: the engine's iteration plan on a modeled cluster (SimGrid), writing the
// same metrics.json and trace.json as `prunex train`.
#include <fmt/core.h>
#include <cstdio>
#include <memory>
#include <set>

#include "analysis/run_summary.h"
#include "apps/cli.h"
#include "apps/field_options.h"
#include "apps/prediction_bands.h"
#include "engine/error.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "settings/run_fields.h"
#include "simulate/run_header.h"
#include "simulate/simulate_config.h"

namespace prunex::cli {
namespace {

int run_simulate(const Args& args) {
  sim::SimulateConfig cfg;
  RunRecord run;
  std::unique_ptr<OutputDir> out_dir;  // --out checked and claimed before the simulation
  try {
    std::set<std::string> given;
    apply_options(sim::simulate_fields(), args, cfg, &given);
    const sim::SimulateSpec spec = sim::make_spec(cfg);
    out_dir = std::make_unique<OutputDir>(cfg.out);
    // Warnings once every check has passed: a refused run prints its one error line only.
    for (const auto& line : fields::settings_not_applying(given, {cfg.strategy}))
      fmt::print(stderr, "prunex simulate: warning: {}\n", line);
    fmt::print("simulate: {} on {}, {} x {} GPUs on {}, {} params\n",
               strategy_name(spec.plan.run.strategy), spec.layout.model, spec.sim.nodes,
               spec.sim.gpus_per_node, spec.topology.name,
               static_cast<long long>(spec.layout.parameters()));
    sim::SimulateConfig as_run = cfg;
    as_run.algo = spec.sim.plan_algo;  // a calibration may set it
    fmt::print("{}\n", sim::assumptions_line(as_run));
    std::fflush(stdout);
    auto result = sim::simulate_run(spec);
    run = std::move(result.run);
    run.summary_extra["communication_share"] = result.communication_share;
    run.summary_extra["time_per_iteration_band"] =
        prediction_band_json(sim::bound_by(spec.band_key, result.communication_share));
    if (result.failures) {
      const sim::FailureEstimate& e = *result.failures;
      fmt::print(
          "failures: system MTBF {:.2f} h ({} nodes); failure-free {:.2f} h; with a checkpoint "
          "every {:.1f} min: expected {:.2f} h ({:.1f} failures); Young's interval {:.1f} min, "
          "Daly's {:.1f} min (expected {:.2f} h)\n",
          e.system_mtbf_s / 3600, spec.sim.nodes, e.solve_s / 3600, e.interval_s / 60,
          e.expected_s / 3600, e.failures, e.young_interval_s / 60, e.daly_interval_s / 60,
          e.expected_at_daly_s / 3600);
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex simulate: error: {}\n", e.what());
    return 2;
  }
  write_run(run, cfg.out);
  print_run_summary(stdout, run, cfg.out);
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "simulate",
    "run the engine's iteration plan on a modeled cluster (SimGrid), write metrics.json",
    "prunex simulate --topology NAME|FILE [--nodes M] [--gpus-per-node P] [--model M] "
    "[--strategy S] [--iterations N] [--out DIR] ...",
    "Builds the plan of one outer iteration of the strategy (the collectives the live engine\n"
    "runs, compute from the layer tables at the input size and batch, memory passes for pack,\n"
    "unpack, projection and the dual updates) and simulates it on the topology with SimGrid.\n"
    "H-SADMM masks come from a synthetic model (--keep, --union-growth) or a live run\n"
    "(--masks metrics.json). Writes OUT/metrics.json and OUT/trace.json like `prunex train`;\n"
    "`--config OUT/metrics.json` reruns the same simulation.\n"
    "What-if: --straggler-gpus LIST or --straggler-fraction F compute --straggler-factor X\n"
    "times slower (synchronous strategies wait for them); --degrade-nic NODE[:RAIL]=FRACTION\n"
    "slows NIC rails; --mtbf-hours H (per node) with --checkpoint-seconds and\n"
    "--restart-seconds reports the expected time to train with checkpoints every\n"
    "--checkpoint-minutes (default: Daly's optimum), beside Young's and Daly's intervals.\n\n"
    "example:\n"
    "  prunex simulate --topology puhti --nodes 16 --gpus-per-node 4 --model resnet152 \\\n"
    "      --strategy hsadmm --iterations 60 --out out/sim",
    field_options(sim::simulate_fields(), sim::SimulateConfig{}), run_simulate});

}  // namespace
}  // namespace prunex::cli
