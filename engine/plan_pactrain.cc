// pactrain's steps (workloads/train/pactrain_codec.cc runs them live), sized by the functions
// the live codec calls (ddp_buckets.h, pactrain.h). Memory passes, D = dense fp32 bytes of all
// tensors, C = the compact bytes: gradient masking (read g and the mask, write g: 3D over the
// layers, counted as 3D), pack (read an int64 index and a value, write the value: 4C), unpack
// (zero the bucket D, then the same 4C), the mask tracker (read the pruning masks, compare a
// byte mask: 1.25D); --ternary: the scaler (C), ternarize (read C, write C/4), scale back
// (read C/4, write C). The modeled steady state: every bucket compact (the mask is fixed after
// pruning).
#include "engine/ddp_buckets.h"
#include "engine/pactrain.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan pactrain_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const auto compact =
      pactrain_compact_floats(layout, in.run.pactrain.prune_ratio, bucket_cap_bytes(in.run.ddp));
  double c = 0;
  for (int64_t f : compact) c += 4.0 * static_cast<double>(f);
  IterationPlan plan;
  const int backward = add_forward_backward(in, plan);
  const auto buckets = ddp_buckets(layout, bucket_cap_bytes(in.run.ddp));
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (in.run.pactrain.ternary) {  // the scaler's MAX, then the int8 levels
      add_bucket_allreduce(in, buckets[i], backward, 4, DType::f32, plan);
      add_bucket_allreduce(in, buckets[i], backward, compact[i], DType::i8, plan);
    } else {
      add_bucket_allreduce(in, buckets[i], backward, compact[i] * 4, DType::f32, plan);
    }
  }
  // mask 3D, pack 4C, unpack D + 4C, tracker 1.25D; ternary 3.5C
  plan.steps.push_back(memory_step(
      Phase::compress, 3 * d + 8 * c + d + 1.25 * d + (in.run.pactrain.ternary ? 3.5 * c : 0)));
  add_copy_back_and_sgd(in, plan);
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
