// cgx's steps (workloads/train/cgx_codec.cc runs them live), sized by the functions the live
// codec calls (ddp_buckets.h, cgx_quantize.h, cgx_allreduce.h). Memory passes, D = dense fp32
// bytes: quantizing reads its values twice (min/max, then levels: 2 per value), adding a
// dequantized chunk reads and writes (2), assigning one writes (1). Scatter-reduce-allgather
// on P ranks: (5P - 2) / P passes over the buffer; the leaders' ring on M: (5M - 2) / M;
// decoding the broadcast: 1. The reductions run after backward (no overlap), as live.
#include "engine/cgx_allreduce.h"
#include "engine/cgx_quantize.h"
#include "engine/ddp_buckets.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {

IterationPlan cgx_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const int p = in.gpus_per_node, m = in.nodes;
  IterationPlan plan;
  add_forward_backward(in, plan);
  const std::vector<int> bits(layout.layers.size(), in.run.cgx.bits);
  for (const auto& b : ddp_buckets(layout, bucket_cap_bytes(in.run.ddp))) {
    const CgxBufferCodec codec =
        cgx_bucket_codec(layout, b.layers, b.offsets, bits, in.run.cgx.bucket_size, false);
    const CgxStepBytes sb = cgx_step_bytes(codec, p, m);
    auto p2p = [&](Group g, CollectiveOp op, double block, int peers) {
      PlanStep s = collective_step(Phase::allreduce, g, op, static_cast<int64_t>(block), DType::u8);
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
      plan.steps.push_back(collective_step(Phase::allreduce, Group::intra, CollectiveOp::broadcast,
                                           sb.broadcast, DType::u8));
  }
  const double passes =
      (p > 1 ? (5.0 * p - 2) / p : 0) + (m > 1 ? (5.0 * m - 2) / m : 0) + (p > 1 && m > 1 ? 1 : 0);
  // Quantizing and decoding run inside the hops, which live times as the allreduce phase.
  finish_codec_in_reduction(in, passes * d, plan);
  return plan;
}

}  // namespace prunex::plan_detail
