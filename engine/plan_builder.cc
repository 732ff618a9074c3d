#include "engine/plan_builder.h"

#include <algorithm>
#include <cmath>

#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "engine/residuals.h"

namespace prunex {
namespace {

void check_inputs(const PlanInputs& in) {
  PRUNEX_USAGE(in.layout != nullptr && !in.layout->layers.empty(), "plan: no model layout");
  PRUNEX_USAGE(in.nodes >= 1 && in.gpus_per_node >= 1,
               "plan: nodes and gpus per node must be "
               ">= 1 (got ",
               in.nodes, " x ", in.gpus_per_node, ")");
  PRUNEX_USAGE(in.batch >= 1, "batch must be >= 1 (got ", in.batch, ")");
  PRUNEX_USAGE(in.samples >= 1, "samples must be >= 1 (got ", in.samples, ")");
  PRUNEX_USAGE(in.local_epochs >= 1, "local epochs must be >= 1 (got ", in.local_epochs, ")");
  PRUNEX_USAGE(in.local_steps >= 0, "local steps must be >= 0 (got ", in.local_steps, ")");
  PRUNEX_USAGE(in.bucket_bytes >= 4, "bucket size must be >= 4 bytes (got ", in.bucket_bytes, ")");
  PRUNEX_USAGE(in.topk_ratio > 0 && in.topk_ratio <= 1, "topk ratio must be in (0, 1] (got ",
               in.topk_ratio, ")");
}

// Local epochs of steps: the model's compute, then the per-step SGD (and proximal) passes.
void add_local_steps(const PlanInputs& in, bool proximal, IterationPlan& plan) {
  const double steps = static_cast<double>(steps_per_iteration(in));
  const double d = static_cast<double>(in.layout->fp32_bytes());
  plan.steps.push_back(compute_step(phase::local_compute, steps * step_flops(in)));
  plan.steps.push_back(memory_step(phase::local_compute, steps * (proximal ? 10 : 5) * d));
}

IterationPlan hsadmm_plan(const PlanInputs& in, bool flat) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  IterationPlan plan;
  add_local_steps(in, true, plan);
  plan.steps.push_back(memory_step(phase::dual_update, 5 * d));  // params_to_flat, theta + u
  if (flat) {
    plan.steps.push_back(collective_step(phase::allreduce, Group::world, CollectiveOp::allreduce,
                                         layout.fp32_bytes()));
    plan.steps.push_back(memory_step(phase::dual_update, 4 * d));  // candidate
    plan.steps.push_back(memory_step(phase::projection, d));
    plan.steps.push_back(memory_step(phase::dual_update, 11 * d));  // u, residual sums
  } else {
    PRUNEX_USAGE(in.global_mask != nullptr, "plan: hsadmm needs the global mask");
    const ModelMask& mask = *in.global_mask;
    PRUNEX_USAGE(mask.size() == layout.layers.size(), "plan: mask has ", mask.size(),
                 " layers, the model ", layout.layers.size());
    const CompactionPlan compact(layout, mask, in.bucket_bytes);
    const auto bits = static_cast<int64_t>(mask.bit_bytes());
    const double c = static_cast<double>(compact.compact_bytes());
    plan.steps.push_back(collective_step(phase::intra_allreduce, Group::intra,
                                         CollectiveOp::allreduce, layout.fp32_bytes()));
    plan.steps.push_back(memory_step(phase::dual_update, 4 * d));  // candidate
    plan.steps.push_back(memory_step(phase::projection, d));
    if (!in.mask_frozen)
      plan.steps.push_back(collective_step(phase::mask_sync, Group::inter, CollectiveOp::allreduce,
                                           bits, DType::u8));
    plan.steps.push_back(
        collective_step(phase::broadcast, Group::intra, CollectiveOp::broadcast, bits, DType::u8));
    if (in.build_compaction) {
      plan.steps.push_back(memory_step(phase::pack, 2 * c));
      plan.steps.back().memory_key = kCompactionPlanKey;
    }
    plan.steps.push_back(memory_step(phase::pack, 3 * c));
    plan.steps.back().group = Group::inter;  // only leaders pack (records; same duration)
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::inter_allreduce, Group::inter,
                                           CollectiveOp::allreduce, compact.bucket_floats(b) * 4));
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::broadcast, Group::intra, CollectiveOp::broadcast,
                                           compact.bucket_floats(b) * 4));
    plan.steps.push_back(memory_step(phase::unpack, c + d));
    if (in.project_global) plan.steps.push_back(memory_step(phase::projection, d));
    plan.steps.push_back(memory_step(phase::dual_update, 24 * d));  // v, u, residual sums
  }
  plan.iterations_per_epoch =
      static_cast<double>(steps_per_epoch(in)) / static_cast<double>(steps_per_iteration(in));
  return plan;
}

// One DDP step: forward, backward with the bucket all-reduces started as their gradients
// become ready (overlap_with = the backward step), then the copy back and the SGD step.
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
    for (size_t l = b.first_layer; l < layout.layers.size(); ++l)
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

// One Top-K step: error feedback + selection, one all-gather of (value, index) blocks over
// the world, the sum of the gathered entries and the residual update, the SGD step.
IterationPlan topk_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  const int64_t block = topk_total_k(layout, in.topk_ratio) * 8;
  IterationPlan plan;
  plan.steps.push_back(compute_step(phase::local_compute, step_flops(in)));
  plan.steps.push_back(memory_step(phase::compress, 4 * d));  // g + e (3D), selection (D)
  plan.steps.push_back(
      collective_step(phase::allgather, Group::world, CollectiveOp::allgather, block, DType::u8));
  // Read every rank's block, scatter-add into the gradient; residual store (2D).
  plan.steps.push_back(
      memory_step(phase::compress, static_cast<double>(block) * world_size(in) + 2 * d));
  plan.steps.push_back(memory_step(phase::local_compute, 5 * d));  // SGD step
  plan.iterations_per_epoch = 1.0 / static_cast<double>(steps_per_epoch(in));
  return plan;
}

// PlanStep::warm from the order of the steps: a collective is warm when no compute step ran
// since the previous collective and it does not overlap one.
void mark_warm(IterationPlan& plan) {
  bool after_collective = false;
  for (auto& s : plan.steps) {
    if (s.kind == StepKind::compute) {
      after_collective = false;
    } else if (s.kind == StepKind::collective) {
      s.warm = after_collective && s.overlap_with < 0;
      after_collective = true;
    }
  }
}

IterationPlan strategy_plan(const PlanInputs& in) {
  switch (in.strategy) {
    case Strategy::hsadmm:
      return hsadmm_plan(in, false);
    case Strategy::hsadmm_flat:
      return hsadmm_plan(in, true);
    case Strategy::ddp:
      return ddp_plan(in);
    case Strategy::topk:
      return topk_plan(in);
  }
  return {};
}

}  // namespace

int64_t residual_allreduce_bytes(const ModelLayout& layout) {
  return static_cast<int64_t>(layout.layers.size()) * ResidualPartials::kFields * 8;
}

int world_size(const PlanInputs& in) {
  return in.nodes * in.gpus_per_node;
}

long shard_samples(const PlanInputs& in) {
  return (in.samples + world_size(in) - 1) / world_size(in);
}

long steps_per_epoch(const PlanInputs& in) {
  return std::max(1L, (shard_samples(in) + in.batch - 1) / in.batch);
}

long steps_per_iteration(const PlanInputs& in) {
  return in.local_steps > 0 ? in.local_steps : steps_per_epoch(in) * in.local_epochs;
}

long plan_repeats(const PlanInputs& in) {
  if (in.strategy == Strategy::ddp || in.strategy == Strategy::topk) return steps_per_iteration(in);
  return 1;
}

double step_flops(const PlanInputs& in) {
  if (in.local_steps > 0)
    return 3.0 * in.layout->forward_flops() *
           static_cast<double>(std::min<long>(in.batch, shard_samples(in)));
  return 3.0 * in.layout->forward_flops() * static_cast<double>(shard_samples(in)) /
         static_cast<double>(steps_per_epoch(in));
}

void set_freeze_state(PlanInputs& in, bool frozen_after_k2, bool frozen_after_k1,
                      bool frozen_after_k) {
  in.mask_frozen = frozen_after_k1;
  in.build_compaction = !frozen_after_k2;  // the freezing iteration drops the union's plan
  in.project_global = !frozen_after_k1 && frozen_after_k;
}

IterationPlan build_plan(const PlanInputs& in) {
  check_inputs(in);
  IterationPlan plan = strategy_plan(in);
  mark_warm(plan);
  return plan;
}

std::vector<DdpBucket> ddp_buckets(const ModelLayout& layout) {
  std::vector<DdpBucket> out;
  int64_t cap = kDdpFirstBucketBytes / 4, fill = 0;
  for (int l = static_cast<int>(layout.layers.size()) - 1; l >= 0; --l) {
    const int64_t n = layout.layers[l].numel();
    if (out.empty() || (fill > 0 && fill + n > cap)) {
      if (!out.empty()) cap = kDdpBucketBytes / 4;
      out.push_back({});
      fill = 0;
    }
    fill += n;
    out.back().floats = fill;
    out.back().first_layer = l;
  }
  return out;
}

int64_t topk_total_k(const ModelLayout& layout, double ratio) {
  int64_t total = 0;
  for (const auto& l : layout.layers)
    total += std::max<int64_t>(1, static_cast<int64_t>(std::ceil(ratio * l.numel())));
  return total;
}

}  // namespace prunex
