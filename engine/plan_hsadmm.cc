// H-SADMM's iteration (engine/hsadmm_consensus.cc runs it live), its rail-parallel variant
// (hsadmm-rail: the same steps but the inter-node exchange) and its flat variant.
#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "engine/plan_strategies.h"

namespace prunex::plan_detail {
namespace {

// The world SUM of the residual partial sums after the last step (untimed).
void add_residual_allreduce(const ModelLayout& layout, IterationPlan& plan) {
  plan.untimed.push_back(collective_step(Phase::dual_update, Group::world, CollectiveOp::allreduce,
                                         residual_allreduce_bytes(layout), DType::f64));
}

double iterations_per_epoch(const PlanInputs& in) {
  return static_cast<double>(steps_per_epoch(in)) / static_cast<double>(steps_per_iteration(in));
}

}  // namespace

IterationPlan hsadmm_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  PRUNEX_USAGE(in.global_mask != nullptr, "plan: hsadmm needs the global mask");
  const ModelMask& mask = *in.global_mask;
  PRUNEX_USAGE(mask.size() == layout.layers.size(), "plan: mask has ", mask.size(),
               " layers, the model ", layout.layers.size());
  IterationPlan plan;
  add_local_steps(in, true, plan);
  plan.steps.push_back(memory_step(Phase::dual_update, 5 * d));  // params_to_flat, theta + u
  const CompactionPlan compact(layout, mask, bucket_bytes(in.run.hsadmm));
  const auto bits = static_cast<int64_t>(mask.bit_bytes());
  const double c = static_cast<double>(compact.compact_bytes());
  plan.steps.push_back(collective_step(Phase::intra_allreduce, Group::intra,
                                       CollectiveOp::allreduce, layout.fp32_bytes()));
  plan.steps.push_back(memory_step(Phase::dual_update, 4 * d));  // candidate
  plan.steps.push_back(memory_step(Phase::projection, d));
  if (!in.mask_frozen)
    plan.steps.push_back(
        collective_step(Phase::mask_sync, Group::inter, CollectiveOp::allreduce, bits, DType::u8));
  plan.steps.push_back(
      collective_step(Phase::broadcast, Group::intra, CollectiveOp::broadcast, bits, DType::u8));
  if (in.build_compaction) {
    plan.steps.push_back(memory_step(Phase::pack, 2 * c));
    plan.steps.back().memory_key = kCompactionPlanKey;
  }
  const DType wire = in.run.hsadmm.wire_dtype;
  const auto value_bytes = static_cast<int64_t>(dtype_size(wire));
  const bool rail = in.run.strategy == Strategy::hsadmm_rail;
  const int P = in.gpus_per_node;
  const int B = compact.buckets();
  // The inter-node payload of bucket b per participating rank, and the intra-node step that
  // spreads it: the leader's whole bucket and its broadcast, or (rail: every rank packs) slice
  // r of the bucket padded to P equal slices, as BucketSet pads it, and the all-gather.
  auto inter_bytes = [&](int b) {
    return rail ? (compact.bucket_floats(b) + P - 1) / P * value_bytes
                : compact.bucket_floats(b) * value_bytes;
  };
  auto inter_step = [&](int b) {
    return collective_step(Phase::inter_allreduce, rail ? Group::rail : Group::inter,
                           CollectiveOp::allreduce, inter_bytes(b), wire);
  };
  auto intra_step = [&](int b) {
    return rail ? collective_step(Phase::allgather, Group::intra, CollectiveOp::allgather,
                                  inter_bytes(b), wire)
                : collective_step(Phase::broadcast, Group::intra, CollectiveOp::broadcast,
                                  inter_bytes(b), wire);
  };
  auto packers_only = [&](PlanStep s) {
    s.group = payload_packers(in.run.strategy);  // records; the same duration
    return s;
  };
  if (in.run.hsadmm.pipeline_buckets && B >= 2) {
    // Per bucket: pack b (after pack b - 1), its all-reduce after that pack and the previous
    // all-reduce (one stream), while pack b + 1 runs; then, per bucket, the intra-node step
    // after its all-reduce and the previous bucket's unpack, and its unpack. Memory passes
    // split by the bucket's share of the compact floats; unpack's dense zeros with bucket 0.
    std::vector<int> ar(B);
    for (int b = 0; b < B; ++b) {
      const double share = static_cast<double>(compact.bucket_floats(b)) / std::max(1.0, c / 4);
      PlanStep pk = packers_only(memory_step(Phase::pack, 3 * c * share));
      if (b > 0) pk.after = {static_cast<int>(plan.steps.size()) - 2};  // pack b - 1
      plan.steps.push_back(pk);
      PlanStep s = inter_step(b);
      s.after = {static_cast<int>(plan.steps.size()) - 1};
      if (b > 0) s.after.push_back(ar[b - 1]);
      ar[b] = static_cast<int>(plan.steps.size());
      plan.steps.push_back(s);
    }
    int last_unpack = -1;
    for (int b = 0; b < B; ++b) {
      const double share = static_cast<double>(compact.bucket_floats(b)) / std::max(1.0, c / 4);
      PlanStep s = intra_step(b);
      s.after = {ar[b]};
      if (last_unpack >= 0) s.after.push_back(last_unpack);
      plan.steps.push_back(s);
      PlanStep up = memory_step(Phase::unpack, c * share + (b == 0 ? d : 0));
      up.after = {static_cast<int>(plan.steps.size()) - 1};
      last_unpack = static_cast<int>(plan.steps.size());
      plan.steps.push_back(up);
    }
  } else {
    plan.steps.push_back(packers_only(memory_step(Phase::pack, 3 * c)));
    for (int b = 0; b < B; ++b) plan.steps.push_back(inter_step(b));
    for (int b = 0; b < B; ++b) plan.steps.push_back(intra_step(b));
    plan.steps.push_back(memory_step(Phase::unpack, c + d));
  }
  if (in.project_global) plan.steps.push_back(memory_step(Phase::projection, d));
  plan.steps.push_back(memory_step(Phase::dual_update, 24 * d));  // v, u, residual sums
  add_residual_allreduce(layout, plan);
  plan.iterations_per_epoch = iterations_per_epoch(in);
  return plan;
}

IterationPlan hsadmm_flat_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  IterationPlan plan;
  add_local_steps(in, true, plan);
  plan.steps.push_back(memory_step(Phase::dual_update, 5 * d));  // params_to_flat, theta + u
  plan.steps.push_back(collective_step(Phase::allreduce, Group::world, CollectiveOp::allreduce,
                                       layout.fp32_bytes()));
  plan.steps.push_back(memory_step(Phase::dual_update, 4 * d));  // candidate
  plan.steps.push_back(memory_step(Phase::projection, d));
  plan.steps.push_back(memory_step(Phase::dual_update, 11 * d));  // u, residual sums
  add_residual_allreduce(layout, plan);
  plan.iterations_per_epoch = iterations_per_epoch(in);
  return plan;
}

}  // namespace prunex::plan_detail
