// One DDP step (workloads/train/ddp_strategy.cc runs it live): forward, backward with the
// bucket all-reduces started as their gradients become ready (overlap_with = the backward
// step), then the copy back and the SGD step.
#include <algorithm>

#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan ddp_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const double fwd = step_flops(in) / 3;
  IterationPlan plan;
  plan.steps.push_back(compute_step(phase::local_compute, fwd));
  plan.steps.push_back(compute_step(phase::local_compute, 2 * fwd));
  const int backward = 1;
  // Backward visits layers last to first; a bucket is ready once its lowest layer is done.
  const double total = layout.forward_flops();
  for (const auto& b : ddp_buckets(layout)) {
    double done = 0;
    for (size_t l = b.first_layer(); l < layout.layers.size(); ++l)
      done += layout.layers[l].forward_flops;
    PlanStep s =
        collective_step(phase::allreduce, Group::world, CollectiveOp::allreduce, b.floats * 4);
    if (in.ddp_overlap) s.overlap_with = backward;
    s.ready_fraction = total > 0 ? std::min(1.0, done / total) : 1.0;
    plan.steps.push_back(s);
  }
  plan.steps.push_back(memory_step(phase::local_compute, 7 * d));  // copy back 2D + SGD 5D
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
