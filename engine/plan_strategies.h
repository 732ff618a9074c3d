// Internal to the plan builder: one function per strategy (plan_<strategy>.cc), each given
// checked inputs; build_plan() dispatches and marks warm collectives.
#pragma once

#include "engine/plan_builder.h"

namespace prunex::plan_detail {

// Local epochs of steps: the model's compute, then the per-step SGD (and proximal) passes.
void add_local_steps(const PlanInputs& in, bool proximal, IterationPlan& plan);
// layer_compute: the element-wise layers' traffic of `steps` local steps, a local_compute memory
// step (memory_key kElementwiseKey) before the compute; nothing otherwise.
void add_elementwise(const PlanInputs& in, double steps, IterationPlan& plan);

IterationPlan hsadmm_plan(const PlanInputs& in);
IterationPlan hsadmm_flat_plan(const PlanInputs& in);
// DDP's step (plan_ddp.cc), shared by the strategies on its buckets: forward and backward as
// two compute steps (returns the backward step's index), and a bucket's all-reduce of `bytes`
// started as backward reaches its lowest layer (overlap_with = backward, unless
// --sync-phases).
int add_forward_backward(const PlanInputs& in, IterationPlan& plan);
// The step's end of ddp and the bucketed peers: the copy back (2D) and the SGD step (5D), plus
// the framework's own per-step overhead (PlanInputs::framework_passes x D), D = fp32 bytes.
void add_copy_back_and_sgd(const PlanInputs& in, IterationPlan& plan);
// The end of a step whose codec works inside its reduction (cgx, powersgd): the codec's
// `bytes` of memory passes, timed as the allreduce phase at the compress phase's speed (a
// calibration fits it from the peers that time compress), then the copy back and SGD step.
void finish_codec_in_reduction(const PlanInputs& in, double bytes, IterationPlan& plan);
void add_bucket_allreduce(const PlanInputs& in, const DdpBucket& b, int backward, int64_t bytes,
                          DType dtype, IterationPlan& plan);
IterationPlan ddp_plan(const PlanInputs& in);
IterationPlan topk_plan(const PlanInputs& in);
// plan_fp16.cc, plan_pactrain.cc, plan_cgx.cc, plan_powersgd.cc
IterationPlan fp16_plan(const PlanInputs& in);
IterationPlan pactrain_plan(const PlanInputs& in);
IterationPlan cgx_plan(const PlanInputs& in);
IterationPlan powersgd_plan(const PlanInputs& in);

}  // namespace prunex::plan_detail
