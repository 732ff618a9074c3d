// `prunex simulate`: the engine's iteration plan on a modeled cluster (SimGrid), writing the
// same metrics.json and trace.json as `prunex train`.
#include <cstdio>

#include "analysis/metrics.h"
#include "analysis/run_summary.h"
#include "apps/cli.h"
#include "apps/simulate_options.h"
#include "engine/error.h"

namespace prunex::cli {
namespace {

std::vector<Option> options() {
  std::vector<Option> o = {
      {"topology", "NAME|FILE", "cluster preset or topology JSON file (required)", ""},
      {"nodes", "M", "nodes (more than the topology has: scaled out)", "the topology's"},
      {"strategy", "S", "hsadmm, hsadmm-flat, ddp, topk", "hsadmm"},
      {"out", "DIR", "output folder", "out/simulate"}};
  for (auto& x : simulate_model_options()) o.push_back(x);
  return o;
}

int run_simulate(const Args& args) {
  const std::string out = args.get_or("out", "out/simulate");
  RunRecord run;
  try {
    sim::SimulateSpec spec = base_spec(args, args.get_or("strategy", "hsadmm"));
    const Topology preset = load_sim_topology(args);
    const long gpn = args.get_int("gpus-per-node", preset.gpus_per_node);
    const long nodes = args.get_int("nodes", preset.nodes);
    PRUNEX_USAGE(nodes >= 1 && nodes <= (1 << 20), "--nodes must be in [1, 1048576] (got ", nodes,
                 ")");
    PRUNEX_USAGE(gpn >= 1 && gpn <= preset.gpus_per_node, "--gpus-per-node must be in [1, ",
                 preset.gpus_per_node, "] for topology ", preset.name, " (got ", gpn, ")");
    const Topology topology = fit_topology(preset, static_cast<int>(nodes), static_cast<int>(gpn));
    shape_spec(spec, args, topology, static_cast<int>(nodes), static_cast<int>(gpn));
    std::printf("simulate: %s on %s, %d nodes x %d GPUs (%s), %lld params\n",
                std::string(strategy_name(spec.plan.strategy)).c_str(), spec.layout.model.c_str(),
                static_cast<int>(nodes), static_cast<int>(gpn), topology.name.c_str(),
                static_cast<long long>(spec.layout.parameters()));
    std::fflush(stdout);
    run = sim::simulate_run(spec).run;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "prunex simulate: error: %s\n", e.what());
    return 2;
  }
  write_run(run, out);
  print_run_summary(stdout, run, out);
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
    "(--masks metrics.json). Writes OUT/metrics.json and OUT/trace.json like `prunex train`.\n\n"
    "example:\n"
    "  prunex simulate --topology puhti --nodes 16 --gpus-per-node 4 --model resnet152 \\\n"
    "      --strategy hsadmm --iterations 60 --out out/sim",
    options(), run_simulate});

}  // namespace
}  // namespace prunex::cli
