// fp16's steps (workloads/train/fp16_codec.cc runs them live): DDP's buckets (ddp_buckets.h)
// carried in fp16. Memory passes, D = dense fp32 bytes of all tensors: the cast with the
// division (read 4, write 2 bytes: 1.5D) and the cast back (1.5D), charged after the backward
// pass (live, the cast runs in the gradient hook); then ddp's copy back (2D) and SGD step (5D).
#include "engine/ddp_buckets.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan fp16_plan(const PlanInputs& in) {
  const double d = static_cast<double>(in.layout->fp32_bytes());
  IterationPlan plan;
  const int backward = add_forward_backward(in, plan);
  for (const auto& b : ddp_buckets(*in.layout, bucket_cap_bytes(in.run.ddp)))
    add_bucket_allreduce(in, b, backward, b.floats * 2, DType::f16, plan);
  plan.steps.push_back(memory_step(Phase::compress, 3 * d));  // the two casts
  add_copy_back_and_sgd(in, plan);
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
