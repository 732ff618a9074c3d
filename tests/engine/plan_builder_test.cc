// Iteration plans and mask models against hand arithmetic on small_cnn's layer shapes
// (prunex model-info --model small_cnn): conv 32x3x3x3 (first conv, never pruned),
// 32x32x3x3, 64x32x3x3, 64x64x3x3, fc 10x64 + bias 10, batch-norm pairs of 32, 32, 64, 64;
// 66,410 parameters.
#include "engine/plan_builder.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/simulated_masks.h"
#include "engine/sparsity_spec.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

constexpr int64_t kDense = 66410;
// Channel sparsity at keep 0.5 keeps half the input channels of the three pruned convs:
// 864 (first conv) + 384 (batch norm) + 32*16*9 + 64*16*9 + 64*32*9 + 650 (fc) floats.
constexpr int64_t kCompactHalf = 864 + 384 + 4608 + 9216 + 18432 + 650;
// Mask bits: out + in + in*k per pruned layer: (32+32+288) + (64+32+288) + (64+64+576).
constexpr int64_t kMaskBytes = (352 + 384 + 704 + 7) / 8;

struct Fixture {
  ModelLayout layout = make_layout("small_cnn");
  SparsitySpec spec =
      SparsitySpec::build(layout, parse_sparsity_kinds("channel"), KeepRate::of_fraction(0.5));
};

std::vector<const PlanStep*> steps_of(const IterationPlan& p, Phase phase) {
  std::vector<const PlanStep*> out;
  for (const auto& s : p.steps)
    if (s.phase == phase) out.push_back(&s);
  return out;
}

PlanInputs inputs(const Fixture& f, Strategy s, const ModelMask* mask, int m = 2, int p = 2) {
  PlanInputs in;
  in.layout = &f.layout;
  in.run.strategy = s;
  in.nodes = m;
  in.gpus_per_node = p;
  in.global_mask = mask;
  return in;
}

TEST(PlanBuilder, HsadmmCollectivesMatchHandCounts) {
  Fixture f;
  ASSERT_EQ(f.layout.parameters(), kDense);
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.0, 2);
  const IterationPlan plan = build_plan(inputs(f, Strategy::hsadmm, &mask));

  const auto intra = steps_of(plan, Phase::intra_allreduce);
  ASSERT_EQ(intra.size(), 1u);
  EXPECT_EQ(intra[0]->bytes, std::size_t(kDense * 4));
  EXPECT_EQ(intra[0]->group, Group::intra);

  const auto sync = steps_of(plan, Phase::mask_sync);
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0]->bytes, std::size_t(kMaskBytes));
  EXPECT_EQ(sync[0]->group, Group::inter);

  const auto inter = steps_of(plan, Phase::inter_allreduce);
  ASSERT_EQ(inter.size(), 1u);  // 136,616 bytes: one 32 MiB bucket
  EXPECT_EQ(inter[0]->bytes, std::size_t(kCompactHalf * 4));
  EXPECT_EQ(inter[0]->group, Group::inter);

  // Broadcasts: the mask bits, then the compact bucket.
  const auto bc = steps_of(plan, Phase::broadcast);
  ASSERT_EQ(bc.size(), 2u);
  EXPECT_EQ(bc[0]->bytes, std::size_t(kMaskBytes));
  EXPECT_EQ(bc[1]->bytes, std::size_t(kCompactHalf * 4));
  EXPECT_EQ(bc[1]->op, CollectiveOp::broadcast);

  // 4 GPUs: ceil(50000 / 4) = 12500 samples, ceil(12500 / 128) = 98 steps.
  EXPECT_EQ(steps_per_epoch(inputs(f, Strategy::hsadmm, &mask)), 98);
  double flops = 0;
  for (const auto* s : steps_of(plan, Phase::local_compute)) flops += s->flops;
  EXPECT_DOUBLE_EQ(flops, 3.0 * f.layout.forward_flops() * 12500);  // the shard, once

  // Memory passes (engine/plan_builder.h): compaction plan build 2C (the mask is not frozen),
  // pack 3C, unpack C + D, projection D.
  const auto pack = steps_of(plan, Phase::pack);
  ASSERT_EQ(pack.size(), 2u);
  EXPECT_DOUBLE_EQ(pack[0]->mem_bytes, 2.0 * kCompactHalf * 4);
  EXPECT_DOUBLE_EQ(pack[1]->mem_bytes, 3.0 * kCompactHalf * 4);
  EXPECT_EQ(pack[1]->group, Group::inter);  // only leaders pack
  EXPECT_DOUBLE_EQ(steps_of(plan, Phase::unpack)[0]->mem_bytes, (kCompactHalf + kDense) * 4.0);
  ASSERT_EQ(steps_of(plan, Phase::projection).size(), 1u);
  EXPECT_DOUBLE_EQ(steps_of(plan, Phase::projection)[0]->mem_bytes, kDense * 4.0);
  EXPECT_EQ(residual_allreduce_bytes(f.layout), 14 * 13 * 8);

  // Once the plan is built for the frozen mask it is reused (one pack step); the freezing
  // iteration projects the global z once more (a second projection pass of D).
  PlanInputs reuse = inputs(f, Strategy::hsadmm, &mask);
  reuse.build_compaction = false;
  ASSERT_EQ(steps_of(build_plan(reuse), Phase::pack).size(), 1u);
  PlanInputs freezing = inputs(f, Strategy::hsadmm, &mask);
  freezing.project_global = true;
  const auto proj = steps_of(build_plan(freezing), Phase::projection);
  ASSERT_EQ(proj.size(), 2u);
  EXPECT_DOUBLE_EQ(proj[1]->mem_bytes, kDense * 4.0);
}

TEST(PlanBuilder, BucketsFrozenMaskAndLocalEpochs) {
  Fixture f;
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.0, 2);
  PlanInputs in = inputs(f, Strategy::hsadmm, &mask);
  in.run.hsadmm.bucket_mib = 0.0625;  // 64 KiB = 16384 floats: 34154 = 16384 + 16384 + 1386
  in.mask_frozen = true;
  in.run.local_epochs = 3;
  const IterationPlan plan = build_plan(in);
  const auto inter = steps_of(plan, Phase::inter_allreduce);
  ASSERT_EQ(inter.size(), 3u);
  EXPECT_EQ(inter[0]->bytes, 16384u * 4);
  EXPECT_EQ(inter[1]->bytes, 16384u * 4);
  EXPECT_EQ(inter[2]->bytes, 1386u * 4);
  EXPECT_EQ(steps_of(plan, Phase::broadcast).size(), 4u);  // bits + 3 buckets
  EXPECT_TRUE(steps_of(plan, Phase::mask_sync).empty());
  EXPECT_DOUBLE_EQ(steps_of(plan, Phase::local_compute)[0]->flops,
                   3.0 * f.layout.forward_flops() * 12500 * 3);
  EXPECT_DOUBLE_EQ(plan.iterations_per_epoch, 1.0 / 3);
  // The ranks synchronise once per iteration, after all its local steps (the skew's sqrt(k)).
  EXPECT_DOUBLE_EQ(plan.local_steps_per_sync, static_cast<double>(steps_per_iteration(in)));
}

TEST(PlanBuilder, LocalStepsReplaceEpochs) {
  // A live run's --local-steps: 30 full batches of 32 per iteration, whatever the shard.
  Fixture f;
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.0, 2);
  PlanInputs in = inputs(f, Strategy::hsadmm, &mask);
  in.run.batch = 32;
  in.samples = 16000;  // 4000 per rank: 125 steps per epoch
  in.run.local_steps = 30;
  EXPECT_EQ(steps_per_iteration(in), 30);
  EXPECT_EQ(plan_repeats(in), 1);
  const IterationPlan plan = build_plan(in);
  EXPECT_DOUBLE_EQ(steps_of(plan, Phase::local_compute)[0]->flops,
                   3.0 * f.layout.forward_flops() * 32 * 30);
  EXPECT_DOUBLE_EQ(plan.iterations_per_epoch, 125.0 / 30);
  EXPECT_DOUBLE_EQ(plan.local_steps_per_sync, 30);
  in.run.strategy = Strategy::ddp;
  EXPECT_EQ(plan_repeats(in), 30);
  EXPECT_DOUBLE_EQ(build_plan(in).local_steps_per_sync, 1) << "ddp synchronises every step";
  in.ddp_overlap = false;  // --sync-phases: all-reduced after backward
  for (const auto* s : steps_of(build_plan(in), Phase::allreduce)) EXPECT_EQ(s->overlap_with, -1);
}

TEST(PlanBuilder, UnionGrowthWidensTheCompactPayload) {
  Fixture f;
  // g = keep = 0.5 on 2 nodes: 16 + round(16 x 0.5) = 24 of 32 channels, 32 + 16 = 48 of 64.
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.5, 2);
  const IterationPlan plan = build_plan(inputs(f, Strategy::hsadmm, &mask));
  const int64_t c = 864 + 384 + 32 * 24 * 9 + 64 * 24 * 9 + 64 * 48 * 9 + 650;
  EXPECT_EQ(steps_of(plan, Phase::inter_allreduce)[0]->bytes, std::size_t(c * 4));
  EXPECT_EQ(union_groups(64, 32, 0.0, 1000), 32);
  EXPECT_EQ(union_groups(64, 32, 1.0, 2), 64);
  EXPECT_EQ(union_groups(100, 50, 0.5, 3), 88);  // 1 - 0.5^3 = 0.875 of 100, rounded half up
  EXPECT_EQ(union_groups(100, 50, 0.5, 1), 50);
  EXPECT_THROW(union_groups(100, 50, 1.5, 2), UsageError);
}

TEST(PlanBuilder, MasksFromRecordedDensities) {
  Fixture f;
  const ModelMask mask = mask_from_densities(
      f.layout, f.spec,
      {{"features.3.weight", 0.25}, {"features.7.weight", 0.5}, {"features.10.weight", 0.75}},
      "m.json");
  const IterationPlan plan = build_plan(inputs(f, Strategy::hsadmm, &mask));
  const int64_t c = 864 + 384 + 32 * 8 * 9 + 64 * 16 * 9 + 64 * 48 * 9 + 650;
  EXPECT_EQ(steps_of(plan, Phase::inter_allreduce)[0]->bytes, std::size_t(c * 4));
  EXPECT_THROW(mask_from_densities(f.layout, f.spec, {{"features.3.weight", 0.5}}, "m.json"),
               UsageError);  // pruned layers missing
  EXPECT_THROW(mask_from_densities(f.layout, f.spec,
                                   {{"features.0.weight", 0.5},
                                    {"features.3.weight", 0.5},
                                    {"features.7.weight", 0.5},
                                    {"features.10.weight", 0.5}},
                                   "m.json"),
               UsageError);  // the first conv is not pruned
  EXPECT_THROW(mask_from_densities(f.layout, f.spec, {{"conv9.weight", 0.5}}, "m.json"),
               UsageError);
}

TEST(PlanBuilder, FlatIsOneDenseWorldAllreduce) {
  Fixture f;
  const IterationPlan plan = build_plan(inputs(f, Strategy::hsadmm_flat, nullptr));
  const auto ar = steps_of(plan, Phase::allreduce);
  ASSERT_EQ(ar.size(), 1u);
  EXPECT_EQ(ar[0]->group, Group::world);
  EXPECT_EQ(ar[0]->bytes, std::size_t(kDense * 4));
  for (const auto& s : plan.steps) EXPECT_NE(s.group, Group::inter);
  EXPECT_THROW(build_plan(inputs(f, Strategy::hsadmm, nullptr)), UsageError);
}

// Four fc layers of 6M, 1M, 100k and 200k floats with forward FLOPs 1, 2, 3, 4.
ModelLayout four_layers() {
  ModelLayout l;
  l.model = "four";
  const int64_t sizes[] = {6000000, 1000000, 100000, 200000};
  for (int i = 0; i < 4; ++i) {
    LayerInfo x;
    x.name = "fc" + std::to_string(i) + ".weight";
    x.role = LayerRole::fc_weight;
    x.shape = {sizes[i], 1};
    x.forward_flops = i + 1;
    l.layers.push_back(x);
  }
  return l;
}

TEST(PlanBuilder, DdpBucketsFollowPytorchRule) {
  // Reverse order; a bucket closes once it reaches its cap (1 MiB first, then 25 MiB):
  // 200k floats = 800,000 B < 1,048,576 stays open, + 100k = 1,200,000 B closes bucket 0;
  // 1M = 4,000,000 B < 26,214,400 stays open, + 6M = 28,000,000 B closes bucket 1.
  const ModelLayout layout = four_layers();
  const auto b = ddp_buckets(layout);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].floats, 300000);
  EXPECT_EQ(b[0].layers, (std::vector<int>{3, 2}));
  EXPECT_EQ(b[0].offsets, (std::vector<int64_t>{0, 200000}));
  EXPECT_EQ(b[1].floats, 7000000);
  EXPECT_EQ(b[1].layers, (std::vector<int>{1, 0}));
  EXPECT_EQ(b[1].offsets, (std::vector<int64_t>{0, 1000000}));
  // A tensor that alone reaches the cap closes its bucket; the rest stays in an open one.
  const auto c = ddp_bucket_assignment({10, 300000, 5}, 1 << 20, 1 << 20);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].layers, (std::vector<int>{2, 1}));
  EXPECT_EQ(c[1].layers, (std::vector<int>{0}));
  PlanInputs in;
  in.layout = &layout;
  in.run.strategy = Strategy::ddp;
  in.nodes = 2;
  in.gpus_per_node = 2;
  const IterationPlan plan = build_plan(in);
  const auto ar = steps_of(plan, Phase::allreduce);
  ASSERT_EQ(ar.size(), 2u);
  int64_t sum = 0;
  for (const auto* s : ar) sum += static_cast<int64_t>(s->bytes);
  EXPECT_EQ(sum, layout.fp32_bytes());
  // Ready once backward (last layer first) has covered the bucket's lowest layer:
  // (4+3)/10 and 10/10 of the backward FLOPs.
  EXPECT_DOUBLE_EQ(ar[0]->ready_fraction, 0.7);
  EXPECT_DOUBLE_EQ(ar[1]->ready_fraction, 1.0);
  for (const auto* s : ar) EXPECT_EQ(s->overlap_with, 1);  // the backward step
  // 50000 / 4 = 12500 samples in 98 steps; backward = 2 x forward.
  EXPECT_NEAR(plan.steps[1].flops, 2 * 10.0 * 12500 / 98, 1e-9);
  EXPECT_EQ(plan_repeats(in), 98);
}

// The framework's per-step overhead (PlanInputs::framework_passes) joins the step's last
// memory pass of ddp and every bucketed peer: (7 + P) x D, D the fp32 bytes.
TEST(PlanBuilder, FrameworkOverheadIsPassesOverTheGradients) {
  const ModelLayout layout = four_layers();
  const double d = static_cast<double>(layout.fp32_bytes());
  for (Strategy st : {Strategy::ddp, Strategy::fp16, Strategy::pactrain, Strategy::cgx}) {
    PlanInputs in;
    in.layout = &layout;
    in.run.strategy = st;
    in.nodes = 2;
    in.gpus_per_node = 2;
    const double before = build_plan(in).steps.back().mem_bytes;
    in.framework_passes = 26.5;
    const IterationPlan plan = build_plan(in);
    EXPECT_DOUBLE_EQ(before, 7 * d) << strategy_name(st);
    EXPECT_DOUBLE_EQ(plan.steps.back().mem_bytes, (7 + 26.5) * d) << strategy_name(st);
    EXPECT_EQ(plan.steps.back().phase, Phase::local_compute) << strategy_name(st);
  }
}

// A framework's timer (PlanInputs::cycle_wait_s, Horovod's cycle) delays every bucket of the
// strategies built on DDP's buckets, by the same wait each; none at world size 1 (Horovod does
// not all-reduce there) and none on other steps.
TEST(PlanBuilder, CycleWaitDelaysEveryBucketButNotAtOneGpu) {
  const ModelLayout layout = four_layers();
  for (Strategy st : {Strategy::ddp, Strategy::fp16}) {
    PlanInputs in;
    in.layout = &layout;
    in.run.strategy = st;
    in.nodes = 2;
    in.gpus_per_node = 2;
    in.cycle_wait_s = 0.0025;
    in.run.ddp.bucket_cap_mb = 64.0 / (1 << 20);  // 64 bytes: several buckets
    int buckets = 0;
    for (const PlanStep& s : build_plan(in).steps) {
      const bool bucket = s.kind == StepKind::collective && s.overlap_with >= 0;
      buckets += bucket;
      EXPECT_DOUBLE_EQ(s.start_delay_s, bucket ? 0.0025 : 0.0) << strategy_name(st);
    }
    EXPECT_EQ(buckets, static_cast<int>(ddp_buckets(layout, bucket_cap_bytes(in.run.ddp)).size()))
        << strategy_name(st);
    ASSERT_GE(buckets, 2);
    // Without overlap every bucket is ready at once: one tick starts them all, so only the
    // first waits.
    in.ddp_overlap = false;
    int waiting = 0;
    for (const PlanStep& s : build_plan(in).steps) waiting += s.start_delay_s == 0.0025;
    EXPECT_EQ(waiting, 1) << strategy_name(st);
    in.nodes = in.gpus_per_node = 1;
    for (const PlanStep& s : build_plan(in).steps) EXPECT_EQ(s.start_delay_s, 0.0);
  }
}

// A framework's fixed cost per local step (PlanInputs::step_overhead_s): each compute step
// carries it for every local step it stands for (hsadmm's k local steps: k of it), split
// between forward and backward as their FLOPs are (1 : 2); the FLOPs do not change.
TEST(PlanBuilder, StepOverheadIsFixedSecondsPerLocalStep) {
  Fixture f;
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.0, 2);
  for (Strategy st : {Strategy::hsadmm, Strategy::hsadmm_flat, Strategy::hsadmm_rail, Strategy::ddp,
                      Strategy::fp16, Strategy::topk, Strategy::pactrain, Strategy::cgx}) {
    PlanInputs in = inputs(f, st, &mask);
    in.run.local_steps = 6;
    const IterationPlan before = build_plan(in);
    in.step_overhead_s = 0.012;
    const IterationPlan plan = build_plan(in);
    ASSERT_EQ(plan.steps.size(), before.steps.size()) << strategy_name(st);
    const bool local =
        st == Strategy::hsadmm || st == Strategy::hsadmm_flat || st == Strategy::hsadmm_rail;
    double fixed = 0;
    std::vector<double> parts;
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
      EXPECT_EQ(plan.steps[i].flops, before.steps[i].flops) << strategy_name(st);
      EXPECT_EQ(before.steps[i].fixed_s, 0.0) << strategy_name(st);
      if (plan.steps[i].kind != StepKind::compute) {
        EXPECT_EQ(plan.steps[i].fixed_s, 0.0) << strategy_name(st);
        continue;
      }
      fixed += plan.steps[i].fixed_s;
      parts.push_back(plan.steps[i].fixed_s / plan.steps[i].flops);
    }
    EXPECT_NEAR(fixed, (local ? 6 : 1) * 0.012, 1e-15) << strategy_name(st);
    for (double p : parts)  // seconds in proportion to FLOPs
      EXPECT_NEAR(p / parts.front(), 1.0, 1e-12) << strategy_name(st);
  }
}

// Per-layer compute (PlanInputs::layer_compute): the compute is the matrix products' FLOPs and
// a memory step before it carries the element-wise passes, (8 + 5) per batch-norm output
// value, of 4 bytes (2 under AMP), for every sample of the step; nothing of it otherwise.
TEST(PlanBuilder, LayerComputeSplitsMatrixFlopsAndElementwiseTraffic) {
  const ModelLayout layout = make_layout("resnet18", 10, 32);
  PlanInputs in;
  in.layout = &layout;
  in.run.strategy = Strategy::ddp;
  in.nodes = 2;
  in.gpus_per_node = 2;
  in.run.batch = 32;
  in.run.local_steps = 1;
  const IterationPlan flops = build_plan(in);
  EXPECT_EQ(flops.steps.front().kind, StepKind::compute);
  in.layer_compute = true;
  for (int bytes : {4, 2}) {
    in.activation_bytes = bytes;
    const IterationPlan plan = build_plan(in);
    ASSERT_EQ(plan.steps.front().kind, StepKind::memory);
    EXPECT_EQ(plan.steps.front().memory_key, kElementwiseKey);
    EXPECT_DOUBLE_EQ(plan.steps.front().mem_bytes,
                     13.0 * static_cast<double>(layout.batch_norm_outputs()) * bytes * 32);
    // forward + backward = 3 x the matrix FLOPs of 32 samples
    EXPECT_DOUBLE_EQ(plan.steps[1].flops + plan.steps[2].flops,
                     3.0 * layout.matrix_forward_flops() * 32);
  }
  EXPECT_LT(layout.matrix_forward_flops(), layout.forward_flops());
}

TEST(PlanBuilder, TopkAllgatherBlock) {
  Fixture f;
  // ceil(0.01 n) per tensor: 9, 1, 1, 93, 1, 1, 185, 1, 1, 369, 1, 1, 7, 1 = 672 entries.
  EXPECT_EQ(topk_total_k(f.layout, 0.01), 672);
  const IterationPlan plan = build_plan(inputs(f, Strategy::topk, nullptr));
  const auto ag = steps_of(plan, Phase::allgather);
  ASSERT_EQ(ag.size(), 1u);
  EXPECT_EQ(ag[0]->bytes, 672u * 8);
  EXPECT_EQ(ag[0]->op, CollectiveOp::allgather);
  EXPECT_EQ(ag[0]->group, Group::world);
  EXPECT_DOUBLE_EQ(plan.iterations_per_epoch, 1.0 / 98);
}

// A collective is warm when no compute step ran since the previous collective and it does
// not overlap compute: in H-SADMM everything after the intra-node all-reduce (the local steps
// come before it), frozen or not; DDP's later buckets only when they run after backward.
TEST(PlanBuilder, WarmCollectivesFollowCommunicationNotCompute) {
  Fixture f;
  const ModelMask mask = synthetic_union_mask(f.layout, f.spec, 0.0, 2);
  for (bool frozen : {false, true}) {
    PlanInputs in = inputs(f, Strategy::hsadmm, &mask);
    in.mask_frozen = frozen;
    std::vector<std::pair<Phase, bool>> got;
    for (const auto& s : build_plan(in).steps)
      if (s.kind == StepKind::collective) got.emplace_back(s.phase, s.warm);
    std::vector<std::pair<Phase, bool>> want = {{Phase::intra_allreduce, false}};
    if (!frozen) want.emplace_back(Phase::mask_sync, true);
    for (Phase p : {Phase::broadcast, Phase::inter_allreduce, Phase::broadcast})
      want.emplace_back(p, true);
    EXPECT_EQ(got, want) << "frozen " << frozen;
  }
  for (Strategy s : {Strategy::hsadmm_flat, Strategy::topk}) {
    for (const auto& step : build_plan(inputs(f, s, nullptr)).steps) {
      if (step.kind == StepKind::collective) {
        EXPECT_FALSE(step.warm) << phase_name(step.phase);
      }
    }
  }
  const ModelLayout layout = four_layers();  // two DDP buckets
  PlanInputs in;
  in.layout = &layout;
  in.run.strategy = Strategy::ddp;
  for (bool overlap : {true, false}) {
    in.ddp_overlap = overlap;
    std::vector<bool> warm;
    for (const auto* st : steps_of(build_plan(in), Phase::allreduce)) warm.push_back(st->warm);
    const std::vector<bool> want =
        overlap ? std::vector<bool>{false, false} : std::vector<bool>{false, true};
    EXPECT_EQ(warm, want) << "overlap " << overlap;
  }
}

TEST(PlanBuilder, BadInputsAreUsageErrors) {
  Fixture f;
  PlanInputs in = inputs(f, Strategy::ddp, nullptr);
  in.run.batch = 0;
  EXPECT_THROW(build_plan(in), UsageError);
  in = inputs(f, Strategy::topk, nullptr);
  in.run.topk.topk_ratio = 0;
  EXPECT_THROW(build_plan(in), UsageError);
  in.layout = nullptr;
  EXPECT_THROW(build_plan(in), UsageError);
}

}  // namespace
}  // namespace prunex
