// One DDP step (workloads/train/ddp_strategy.cc runs it live): forward, backward with the
// bucket all-reduces started as their gradients become ready (overlap_with = the backward
// step), then the copy back and the SGD step.
#include <algorithm>

#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

int add_forward_backward(const PlanInputs& in, IterationPlan& plan) {
  add_elementwise(in, 1, plan);
  const double fwd = step_flops(in) / 3;
  plan.steps.push_back(compute_step(Phase::local_compute, fwd, in.step_overhead_s / 3));
  plan.steps.push_back(compute_step(Phase::local_compute, 2 * fwd, 2 * in.step_overhead_s / 3));
  return static_cast<int>(plan.steps.size()) - 1;
}

void add_bucket_allreduce(const PlanInputs& in, const DdpBucket& b, int backward, int64_t bytes,
                          DType dtype, IterationPlan& plan) {
  const ModelLayout& layout = *in.layout;
  // Backward visits layers last to first; a bucket is ready once its lowest layer is done.
  double done = 0;
  for (size_t l = b.first_layer(); l < layout.layers.size(); ++l)
    done += layout.layers[l].forward_flops;
  const double total = layout.forward_flops();
  PlanStep s =
      collective_step(Phase::allreduce, Group::world, CollectiveOp::allreduce, bytes, dtype);
  if (in.ddp_overlap) s.overlap_with = backward;
  s.ready_fraction = total > 0 ? std::min(1.0, done / total) : 1.0;
  // A framework's timer (Horovod's cycle): each overlapped bucket waits for the tick after its
  // gradients are ready; without overlap every gradient is ready at once and one tick starts
  // them all, so only the first bucket waits.
  const bool first = plan.steps.empty() || plan.steps.back().kind != StepKind::collective;
  if (world_size(in) > 1 && (in.ddp_overlap || first)) s.start_delay_s = in.cycle_wait_s;
  plan.steps.push_back(s);
}

void add_copy_back_and_sgd(const PlanInputs& in, IterationPlan& plan) {
  const double d = static_cast<double>(in.layout->fp32_bytes());
  plan.steps.push_back(memory_step(Phase::local_compute, (7 + in.framework_passes) * d));
}

void finish_codec_in_reduction(const PlanInputs& in, double bytes, IterationPlan& plan) {
  PlanStep codec_passes = memory_step(Phase::allreduce, bytes);
  codec_passes.memory_key = "compress";
  plan.steps.push_back(codec_passes);
  add_copy_back_and_sgd(in, plan);
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
}

IterationPlan ddp_plan(const PlanInputs& in) {
  IterationPlan plan;
  const int backward = add_forward_backward(in, plan);
  for (const auto& b : ddp_buckets(*in.layout, bucket_cap_bytes(in.run.ddp)))
    add_bucket_allreduce(in, b, backward, b.floats * 4, DType::f32, plan);
  add_copy_back_and_sgd(in, plan);
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
