#include "engine/plan_builder.h"

#include <algorithm>
#include <cmath>

#include "engine/error.h"
#include "engine/mask_freeze.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"
#include "engine/residuals.h"

namespace prunex {
namespace {

void check_inputs(const PlanInputs& in) {
  PRUNEX_USAGE(in.layout != nullptr && !in.layout->layers.empty(), "plan: no model layout");
  PRUNEX_USAGE(in.nodes >= 1 && in.gpus_per_node >= 1,
               "plan: nodes and gpus per node must be "
               ">= 1 (got ",
               in.nodes, " x ", in.gpus_per_node, ")");
  PRUNEX_USAGE(in.run.batch >= 1, "batch must be >= 1 (got ", in.run.batch, ")");
  PRUNEX_USAGE(in.samples >= 1, "samples must be >= 1 (got ", in.samples, ")");
  PRUNEX_USAGE(in.run.local_epochs >= 1, "local epochs must be >= 1 (got ", in.run.local_epochs,
               ")");
  PRUNEX_USAGE(in.run.local_steps >= 0, "local steps must be >= 0 (got ", in.run.local_steps, ")");
  PRUNEX_USAGE(bucket_bytes(in.run.hsadmm) >= 4, "bucket size must be >= 4 bytes (got ",
               bucket_bytes(in.run.hsadmm), ")");
  PRUNEX_USAGE(in.run.topk.topk_ratio > 0 && in.run.topk.topk_ratio <= 1,
               "topk ratio must be in (0, 1] (got ", in.run.topk.topk_ratio, ")");
  PRUNEX_USAGE(in.run.pactrain.prune_ratio >= 0 && in.run.pactrain.prune_ratio < 1,
               "prune ratio must be in [0, 1) (got ", in.run.pactrain.prune_ratio, ")");
  PRUNEX_USAGE(in.run.cgx.bits >= 1 && in.run.cgx.bits <= 8 && in.run.cgx.bucket_size >= 1,
               "cgx bits must be in 1..8 and the bucket positive (got ", in.run.cgx.bits, ", ",
               in.run.cgx.bucket_size, ")");
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
  switch (in.run.strategy) {
    case Strategy::hsadmm:
    case Strategy::hsadmm_rail:
      return plan_detail::hsadmm_plan(in);
    case Strategy::hsadmm_flat:
      return plan_detail::hsadmm_flat_plan(in);
    case Strategy::ddp:
      return plan_detail::ddp_plan(in);
    case Strategy::topk:
      return plan_detail::topk_plan(in);
    case Strategy::fp16:
      return plan_detail::fp16_plan(in);
    case Strategy::pactrain:
      return plan_detail::pactrain_plan(in);
    case Strategy::cgx:
      return plan_detail::cgx_plan(in);
    case Strategy::powersgd:
      return plan_detail::powersgd_plan(in);
  }
  return {};
}

}  // namespace

void plan_detail::add_elementwise(const PlanInputs& in, double steps, IterationPlan& plan) {
  const double bytes = steps * step_elementwise_bytes(in);
  if (bytes <= 0) return;
  PlanStep s = memory_step(Phase::local_compute, bytes);
  s.memory_key = kElementwiseKey;
  plan.steps.push_back(s);
}

void plan_detail::add_local_steps(const PlanInputs& in, bool proximal, IterationPlan& plan) {
  const double steps = static_cast<double>(steps_per_iteration(in));
  const double d = static_cast<double>(in.layout->fp32_bytes());
  add_elementwise(in, steps, plan);
  plan.steps.push_back(
      compute_step(Phase::local_compute, steps * step_flops(in), steps * in.step_overhead_s));
  plan.steps.push_back(memory_step(Phase::local_compute, steps * (proximal ? 10 : 5) * d));
  plan.local_steps_per_sync = steps;
}

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
  return std::max(1L, (shard_samples(in) + in.run.batch - 1) / in.run.batch);
}

long steps_per_iteration(const PlanInputs& in) {
  return in.run.local_steps > 0 ? in.run.local_steps : steps_per_epoch(in) * in.run.local_epochs;
}

long plan_repeats(const PlanInputs& in) {
  return is_consensus(in.run.strategy) ? 1 : steps_per_iteration(in);
}

double step_samples(const PlanInputs& in) {
  if (in.run.local_steps > 0)
    return static_cast<double>(std::min<long>(in.run.batch, shard_samples(in)));
  return static_cast<double>(shard_samples(in)) / static_cast<double>(steps_per_epoch(in));
}

double step_flops(const PlanInputs& in) {
  const double fwd =
      in.layer_compute ? in.layout->matrix_forward_flops() : in.layout->forward_flops();
  return 3.0 * fwd * step_samples(in);
}

double step_elementwise_bytes(const PlanInputs& in) {
  if (!in.layer_compute) return 0;
  constexpr double kBatchNormPasses = 8, kReluPasses = 5;  // per value (header)
  const ModelLayout& l = *in.layout;
  const int64_t bn = l.batch_norm_outputs();
  const double passes = bn > 0 ? (kBatchNormPasses + kReluPasses) * static_cast<double>(bn)
                               : kReluPasses * static_cast<double>(l.conv_outputs());
  return passes * in.activation_bytes * step_samples(in);
}

void set_freeze_state(PlanInputs& in, bool frozen_after_k2, bool frozen_after_k1,
                      bool frozen_after_k) {
  const FreezeSteps f = freeze_steps(frozen_after_k2, frozen_after_k1, frozen_after_k);
  in.mask_frozen = !f.mask_sync;
  in.build_compaction = f.build_compaction;
  in.project_global = f.project_global;
}

IterationPlan build_plan(const PlanInputs& in) {
  check_inputs(in);
  IterationPlan plan = strategy_plan(in);
  mark_warm(plan);
  return plan;
}

bool takes_part(const PlanStep& step, const NodeGrouping& grouping, int world_rank) {
  return step.kind == StepKind::compute || grouping.takes_part(step.group, world_rank);
}

std::vector<CallRecord> plan_calls(const IterationPlan& plan, const NodeGrouping& grouping,
                                   int world_rank) {
  std::vector<CallRecord> out;
  auto add = [&](const PlanStep& s) {
    if (s.kind != StepKind::collective || !takes_part(s, grouping, world_rank)) return;
    if (s.sent_bytes > 0)
      out.push_back({CollectiveOp::send, s.group, DType::u8, s.sent_bytes, 0});
    else
      out.push_back({s.op, s.group, s.dtype, s.bytes, 0});
  };
  for (const auto& s : plan.steps) add(s);
  for (const auto& s : plan.untimed) add(s);
  return out;
}

std::vector<Phase> plan_phases(const IterationPlan& plan, const NodeGrouping& grouping,
                               int world_rank, long repeats) {
  std::vector<Phase> out;
  for (long i = 0; i < repeats; ++i)
    for (const auto& s : plan.steps)
      if (takes_part(s, grouping, world_rank) && (out.empty() || out.back() != s.phase))
        out.push_back(s.phase);
  return out;
}

}  // namespace prunex
