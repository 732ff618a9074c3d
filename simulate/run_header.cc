#include "simulate/run_header.h"

#include <fmt/core.h>

#include "engine/plan_builder.h"
#include "topologies/topology_names.h"

namespace prunex::sim {

namespace {

// The workload: the data set whose shape it has, if any, and the shape.
std::string workload(const SimulateConfig& c) {
  const std::string dataset = shaped_dataset_of(c);
  const std::string name = dataset.empty() ? "a custom workload" : "dataset " + dataset;
  return fmt::format("{} ({} x {} x {}, {} classes, {} samples)", name, c.input, c.input,
                     c.input_channels, c.classes, c.samples);
}

std::string what_ifs(const SimulateConfig& c) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (!c.straggler_gpus.empty())
    add(fmt::format("--straggler-gpus {} x{:g}", c.straggler_gpus, c.straggler_factor));
  if (c.straggler_fraction > 0)
    add(fmt::format("--straggler-fraction {:g} x{:g}", c.straggler_fraction, c.straggler_factor));
  if (!c.degrade_nic.empty()) add("--degrade-nic " + c.degrade_nic);
  if (c.mtbf_hours > 0) add(fmt::format("--mtbf-hours {:g}", c.mtbf_hours));
  if (c.link_what_if().any()) add(link_what_if_text(c.link_what_if()));
  return s.empty() ? "none" : s;
}

}  // namespace

std::string assumptions_line(const SimulateConfig& c) {
  std::string collectives = algo_name(c.algo);
  if (c.algo == Algo::nccl) collectives += " (ring or tree per collective, as NCCL picks)";
  if (c.calibration.empty()) {
    collectives += c.achieved_bandwidth ? ", achieved bandwidths" : ", signalling rates";
    if (c.nccl_protocols)
      collectives += ", NCCL's protocols by size";
    else if (c.call_latency)
      collectives += ", NCCL's base latency per call";
  } else {
    collectives += ", calibration " + c.calibration;
  }
  std::string mechanisms =
      fmt::format("interference {:g}, DDP overhead {:g} passes, sync skew {:g}", c.interference,
                  c.ddp_overhead_passes, c.sync_skew);
  if (c.step_overhead_ms > 0)
    mechanisms += fmt::format(", step overhead {:g} ms", c.step_overhead_ms);
  if (c.horovod_cycle_ms > 0)
    mechanisms += fmt::format(", Horovod cycle {:g} ms", c.horovod_cycle_ms);
  if (c.compute_cost != "flops") mechanisms += ", compute per layer";
  return fmt::format(
      "assumes: {}, batch {} per GPU, {}; collectives: {}; mechanisms: {}; what-if: {}",
      workload(c), c.batch, precision_name(c.precision), collectives, mechanisms, what_ifs(c));
}

}  // namespace prunex::sim
