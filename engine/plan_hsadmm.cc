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
  plan.untimed.push_back(collective_step(phase::dual_update, Group::world, CollectiveOp::allreduce,
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
  plan.steps.push_back(memory_step(phase::dual_update, 5 * d));  // params_to_flat, theta + u
  const CompactionPlan compact(layout, mask, in.bucket_bytes);
  const auto bits = static_cast<int64_t>(mask.bit_bytes());
  const double c = static_cast<double>(compact.compact_bytes());
  plan.steps.push_back(collective_step(phase::intra_allreduce, Group::intra,
                                       CollectiveOp::allreduce, layout.fp32_bytes()));
  plan.steps.push_back(memory_step(phase::dual_update, 4 * d));  // candidate
  plan.steps.push_back(memory_step(phase::projection, d));
  if (!in.mask_frozen)
    plan.steps.push_back(
        collective_step(phase::mask_sync, Group::inter, CollectiveOp::allreduce, bits, DType::u8));
  plan.steps.push_back(
      collective_step(phase::broadcast, Group::intra, CollectiveOp::broadcast, bits, DType::u8));
  if (in.build_compaction) {
    plan.steps.push_back(memory_step(phase::pack, 2 * c));
    plan.steps.back().memory_key = kCompactionPlanKey;
  }
  plan.steps.push_back(memory_step(phase::pack, 3 * c));
  const DType wire = in.wire_dtype;
  const auto value_bytes = static_cast<int64_t>(dtype_size(wire));
  if (in.strategy == Strategy::hsadmm_rail) {
    // Every rank packs; slice r of each bucket (padded to P equal slices, as BucketSet
    // pads it) is summed on rail r, then the node all-gathers the slices.
    const int P = in.gpus_per_node;
    auto slice_bytes = [&](int b) { return (compact.bucket_floats(b) + P - 1) / P * value_bytes; };
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::inter_allreduce, Group::rail,
                                           CollectiveOp::allreduce, slice_bytes(b), wire));
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::allgather, Group::intra, CollectiveOp::allgather,
                                           slice_bytes(b), wire));
  } else {
    plan.steps.back().group = Group::inter;  // only leaders pack (records; same duration)
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::inter_allreduce, Group::inter,
                                           CollectiveOp::allreduce,
                                           compact.bucket_floats(b) * value_bytes, wire));
    for (int b = 0; b < compact.buckets(); ++b)
      plan.steps.push_back(collective_step(phase::broadcast, Group::intra, CollectiveOp::broadcast,
                                           compact.bucket_floats(b) * value_bytes, wire));
  }
  plan.steps.push_back(memory_step(phase::unpack, c + d));
  if (in.project_global) plan.steps.push_back(memory_step(phase::projection, d));
  plan.steps.push_back(memory_step(phase::dual_update, 24 * d));  // v, u, residual sums
  add_residual_allreduce(layout, plan);
  plan.iterations_per_epoch = iterations_per_epoch(in);
  return plan;
}

IterationPlan hsadmm_flat_plan(const PlanInputs& in) {
  const ModelLayout& layout = *in.layout;
  const double d = static_cast<double>(layout.fp32_bytes());
  IterationPlan plan;
  add_local_steps(in, true, plan);
  plan.steps.push_back(memory_step(phase::dual_update, 5 * d));  // params_to_flat, theta + u
  plan.steps.push_back(collective_step(phase::allreduce, Group::world, CollectiveOp::allreduce,
                                       layout.fp32_bytes()));
  plan.steps.push_back(memory_step(phase::dual_update, 4 * d));  // candidate
  plan.steps.push_back(memory_step(phase::projection, d));
  plan.steps.push_back(memory_step(phase::dual_update, 11 * d));  // u, residual sums
  add_residual_allreduce(layout, plan);
  plan.iterations_per_epoch = iterations_per_epoch(in);
  return plan;
}

}  // namespace prunex::plan_detail
