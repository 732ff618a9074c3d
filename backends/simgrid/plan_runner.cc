// An IterationPlan in simulated time: each step simulated on its own (compute as executions
// on every GPU host plus the step's fixed seconds, memory passes as sleeps, collectives as
// flows), then placed by the model's timeline (netmodel/plan_timeline.h: overlap, queues,
// synchronisation skew, interference).
#include <algorithm>

#include "backends/simgrid/sim_cluster_impl.h"
#include "engine/plan_builder.h"
#include "netmodel/plan_timeline.h"

namespace prunex::sim {

PlanTiming SimCluster::run_plan(const IterationPlan& plan) {
  impl_->link_bytes.clear();
  std::vector<StepDuration> own(plan.steps.size());
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    StepDuration& d = own[i];
    switch (step.kind) {
      case StepKind::compute:
        d.rank_seconds = run_compute_ranks(step.flops, step.fixed_s);
        d.seconds = d.rank_seconds.empty()
                        ? 0.0
                        : *std::max_element(d.rank_seconds.begin(), d.rank_seconds.end());
        break;
      case StepKind::memory:
        d.seconds =
            run_memory(step.mem_bytes, std::string(phase_name(step.phase)), step.memory_key);
        break;
      case StepKind::collective:
        d.seconds =
            run_collective(step.op, config().plan_algo, step.group, step.bytes, step.warm).seconds;
        break;
    }
  }
  PlanTiming timing = place_on_timeline(plan, own, timeline_model(config()));
  timing.network_model = model_description();
  for (const auto& [link, bytes] : impl_->link_bytes)
    timing.links.push_back({link->get_name(), bytes, link->get_bandwidth()});
  std::sort(timing.links.begin(), timing.links.end(),
            [](const LinkLoad& a, const LinkLoad& b) { return a.name < b.name; });
  return timing;
}

}  // namespace prunex::sim
