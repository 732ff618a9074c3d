// powersgd's steps (workloads/train/powersgd_codec.cc runs them live), sized by
// engine/powersgd.h: after backward, per bucket, the whole tensors' all-reduce, then P's, then
// Q's (each waits for the one before: P needs nothing of the whole tensors, but PyTorch's hook
// chains them so, and so does the codec). The modeled steady state is after
// --start-powersgd-iter, with error feedback (PyTorch's defaults). Memory passes, D = dense
// fp32 bytes, W = the whole tensors' bytes, C = the compressed matrices' bytes, Q = the Q
// factors' bytes: error feedback (add the error 3D, keep a copy 2D, the new error 3D), the
// whole tensors gathered, averaged and scattered back (6W), the three products at rank r,
// memory-bound (M Q and M^T P read M, P Q^T writes it: 3C), Q averaged (2Q). They run inside
// the reduction, which live times as the allreduce phase.
#include "engine/ddp_buckets.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"
#include "engine/powersgd.h"

namespace prunex::plan_detail {

IterationPlan powersgd_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  IterationPlan plan;
  add_forward_backward(in, plan);
  double whole = 0, compressed = 0, q = 0;
  for (const auto& b : ddp_buckets(layout, bucket_cap_bytes(in.run.ddp))) {
    const PowerSgdBucket p = powersgd_bucket(layout, b, in.run.powersgd.matrix_approximation_rank,
                                             in.run.powersgd.min_compression_rate);
    for (int64_t floats : {p.whole_floats, p.p_floats, p.q_floats})
      if (floats > 0)
        plan.steps.push_back(collective_step(Phase::allreduce, Group::world,
                                             CollectiveOp::allreduce, floats * 4, DType::f32));
    whole += 4.0 * static_cast<double>(p.whole_floats);
    compressed += 4.0 * static_cast<double>(b.floats - p.whole_floats);
    q += 4.0 * static_cast<double>(p.q_floats);
  }
  finish_codec_in_reduction(in, 8 * d + 6 * whole + 3 * compressed + 2 * q, plan);
  return plan;
}

}  // namespace prunex::plan_detail
