// One Top-K step (workloads/train/topk_strategy.cc runs it live): error feedback +
// selection, one all-gather of (value, index) blocks over the world, the sum of the gathered
// entries and the residual update, the SGD step.
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan topk_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const int64_t block = topk_block_bytes(topk_total_k(layout, in.run.topk.topk_ratio));
  IterationPlan plan;
  add_elementwise(in, 1, plan);
  plan.steps.push_back(compute_step(Phase::local_compute, step_flops(in), in.step_overhead_s));
  plan.steps.push_back(memory_step(Phase::compress, 4 * d));  // g + e (3D), selection (D)
  plan.steps.push_back(
      collective_step(Phase::allgather, Group::world, CollectiveOp::allgather, block, DType::u8));
  // Read every rank's block, scatter-add into the gradient; residual store (2D).
  plan.steps.push_back(
      memory_step(Phase::compress, static_cast<double>(block) * world_size(in) + 2 * d));
  plan.steps.push_back(memory_step(Phase::local_compute, 5 * d));  // SGD step
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
