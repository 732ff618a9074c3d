// The peer systems' steps (workloads/train/ddp_strategy.cc runs them live), one local step
// each, sized by the functions the live strategies call (ddp_buckets.h, pactrain.h,
// cgx_codec.h, cgx_allreduce.h). Memory passes per element, D = dense fp32 bytes of all
// tensors, C = the compact bytes (pactrain):
// - fp16: the cast with the division (read 4, write 2 bytes: 1.5D) and the cast back (1.5D),
//   charged after the backward pass (live, the cast runs in the gradient hook); then ddp's copy
//   back (2D) and SGD step (5D).
// - pactrain: gradient masking (read g and the mask, write g: 3D over the layers, counted as
//   3D), pack (read an int64 index and a value, write the value: 4C), unpack (zero the bucket
//   D, then the same 4C), the mask tracker (read the pruning masks, compare a byte mask: 1.25D);
//   --ternary: the scaler (C), ternarize (read C, write C/4), scale back (read C/4, write C).
//   The modeled steady state: every bucket compact (the mask is fixed after pruning).
// - cgx: quantizing reads its values twice (min/max, then levels: 2 per value), adding a
//   dequantized chunk reads and writes (2), assigning one writes (1). Scatter-reduce-allgather
//   on P ranks: (5P - 2) / P passes over the buffer; the leaders' ring on M: (5M - 2) / M;
//   decoding the broadcast: 1. The reductions run after backward (no overlap), as live.
#include <algorithm>

#include "engine/cgx_allreduce.h"
#include "engine/cgx_codec.h"
#include "engine/ddp_buckets.h"
#include "engine/pactrain.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan fp16_plan(const PlanInputs& in) {
  const double d = static_cast<double>(in.layout->fp32_bytes());
  IterationPlan plan;
  const int backward = add_forward_backward(in, plan);
  for (const auto& b : ddp_buckets(*in.layout))
    add_bucket_allreduce(in, b, backward, b.floats * 2, DType::f16, plan);
  plan.steps.push_back(memory_step(phase::compress, 3 * d));       // the two casts
  plan.steps.push_back(memory_step(phase::local_compute, 7 * d));  // copy back 2D + SGD 5D
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

IterationPlan pactrain_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const auto compact = pactrain_compact_floats(layout, in.prune_ratio);
  double c = 0;
  for (int64_t f : compact) c += 4.0 * static_cast<double>(f);
  IterationPlan plan;
  const int backward = add_forward_backward(in, plan);
  const auto buckets = ddp_buckets(layout);
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (in.ternary) {  // the scaler's MAX, then the int8 levels
      add_bucket_allreduce(in, buckets[i], backward, 4, DType::f32, plan);
      add_bucket_allreduce(in, buckets[i], backward, compact[i], DType::i8, plan);
    } else {
      add_bucket_allreduce(in, buckets[i], backward, compact[i] * 4, DType::f32, plan);
    }
  }
  // mask 3D, pack 4C, unpack D + 4C, tracker 1.25D; ternary 3.5C
  plan.steps.push_back(
      memory_step(phase::compress, 3 * d + 8 * c + d + 1.25 * d + (in.ternary ? 3.5 * c : 0)));
  plan.steps.push_back(memory_step(phase::local_compute, 7 * d));
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

IterationPlan cgx_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const int p = in.gpus_per_node, m = in.nodes;
  IterationPlan plan;
  add_forward_backward(in, plan);
  const std::vector<int> bits(layout.layers.size(), in.cgx_bits);
  for (const auto& b : ddp_buckets(layout)) {
    const CgxBufferCodec codec =
        cgx_bucket_codec(layout, b.layers, b.offsets, bits, in.cgx_bucket, false);
    const CgxStepBytes sb = cgx_step_bytes(codec, p, m);
    auto p2p = [&](Group g, CollectiveOp op, double block, int peers) {
      PlanStep s = collective_step(phase::allreduce, g, op, static_cast<int64_t>(block), DType::u8);
      s.sent_bytes = static_cast<std::size_t>(block * peers);
      plan.steps.push_back(s);
    };
    if (p > 1) {  // scatter to the owners, then the owners' sums to everyone
      p2p(Group::intra, CollectiveOp::alltoall, sb.sra_block, p - 1);
      p2p(Group::intra, CollectiveOp::alltoall, sb.sra_block, p - 1);
    }
    if (m > 1) {  // the ring's reduce-scatter and all-gather hops
      p2p(Group::inter, CollectiveOp::allgather, sb.ring_block, m - 1);
      p2p(Group::inter, CollectiveOp::allgather, sb.ring_block, m - 1);
    }
    if (p > 1 && m > 1)
      plan.steps.push_back(collective_step(phase::allreduce, Group::intra, CollectiveOp::broadcast,
                                           sb.broadcast, DType::u8));
  }
  const double passes =
      (p > 1 ? (5.0 * p - 2) / p : 0) + (m > 1 ? (5.0 * m - 2) / m : 0) + (p > 1 && m > 1 ? 1 : 0);
  plan.steps.push_back(memory_step(phase::compress, passes * d));
  plan.steps.push_back(memory_step(phase::local_compute, 7 * d));
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

}  // namespace prunex::plan_detail
