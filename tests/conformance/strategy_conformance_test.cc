// Conformance of the live strategies as `prunex train` runs them (LibTorch models, local
// steps, hooks): every outer iteration of every strategy, on every rank, makes exactly the
// collectives of its plan — plan_calls() of the plan for that iteration, repeated
// plan_repeats() times for the strategies that synchronise every step. Ranks are threads
// over the in-process communicator; the data are synthetic.
#include <torch/torch.h>

#include "backends/inproc/inproc_communicator.h"
#include "engine/plan_builder.h"
#include "tests/conformance/conformance.h"
#include "workloads/train/live_strategy.h"

namespace prunex::test {
namespace {

TrainConfig config_for(Strategy strategy) {
  TrainConfig c;
  c.strategy = strategy;
  c.dataset = "synthetic";
  // DDP: resnet20 (272k floats) spans two buckets under PyTorch's rule (the first closes
  // at 1 MiB); small_cnn would fit in one, and the bucketing would go unchecked.
  c.model = strategy == Strategy::ddp ? "resnet20" : "small_cnn";
  c.synthetic_samples = 512;
  c.test_samples = 64;
  c.batch = 16;
  c.local_steps = 3;
  c.iterations = 4;
  c.t_freeze = 2;  // hsadmm: unfrozen 1-2, frozen 3-4
  c.freeze_after = 0;
  c.bucket_mib = 0.0625;  // 64 KiB buckets: several inter-node buckets
  c.lr = 0.01;
  return c;
}

// Returns the number of collectives rank 0 made in the first iteration.
std::size_t expect_conformance(Strategy strategy, int nodes, int gpus_per_node, bool sync_phases) {
  SCOPED_TRACE(std::string(strategy_name(strategy)) + (sync_phases ? " --sync-phases" : ""));
  torch::set_num_threads(1);
  const NodeGrouping grouping{nodes * gpus_per_node, gpus_per_node};
  TrainConfig cfg = config_for(strategy);
  cfg.sync_phases = sync_phases;
  std::vector<std::vector<LocalIteration>> local(grouping.world_size);
  std::vector<std::vector<std::vector<CallRecord>>> calls(grouping.world_size);
  std::vector<long> samples(grouping.world_size);
  std::vector<ModelLayout> layouts(grouping.world_size);
  spawn_ranks(grouping, [&](Communicator& comm) {
    TrainSetup s = make_setup(cfg, comm);
    auto live = make_live_strategy(s, comm);
    PhaseClock clock(now_seconds(), cfg.sync_phases);
    samples[comm.world_rank()] = static_cast<long>(s.train_samples_total);
    layouts[comm.world_rank()] = s.layout;
    for (int k = 1; k <= cfg.iterations; ++k) {
      comm.clear_calls();
      local[comm.world_rank()].push_back(live->iterate(k, clock));
      calls[comm.world_rank()].push_back(comm.calls());
    }
  });
  for (int r = 0; r < grouping.world_size; ++r) {
    const ModelLayout& layout = layouts[r];
    for (int k = 1; k <= cfg.iterations; ++k) {
      SCOPED_TRACE("rank " + std::to_string(r) + ", iteration " + std::to_string(k));
      auto frozen_after = [&](int i) { return i >= 1 && local[r][i - 1].frozen; };
      PlanInputs in;
      in.layout = &layout;
      in.strategy = strategy;
      in.nodes = nodes;
      in.gpus_per_node = gpus_per_node;
      in.batch = cfg.batch;
      in.samples = samples[r];
      in.local_steps = cfg.local_steps;
      in.bucket_bytes = static_cast<int64_t>(cfg.bucket_mib * (1 << 20));
      in.topk_ratio = cfg.topk_ratio;
      in.ddp_overlap = !sync_phases;
      in.global_mask = &local[r][k - 1].payload_mask;
      set_freeze_state(in, frozen_after(k - 2), frozen_after(k - 1), frozen_after(k));
      const IterationPlan plan = build_plan(in);
      std::vector<CallRecord> want;
      for (long i = 0; i < plan_repeats(in); ++i)
        for (const auto& c : plan_calls(plan, grouping, r)) want.push_back(c);
      EXPECT_TRUE(same_calls(without_barriers(calls[r][k - 1]), want));
    }
  }
  return without_barriers(calls[0][0]).size();
}

TEST(StrategyConformance, HsadmmTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm, 2, 2, false);
}

TEST(StrategyConformance, HsadmmRailTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_rail, 2, 2, false);
}

TEST(StrategyConformance, HsadmmFlatTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_flat, 2, 2, false);
}

TEST(StrategyConformance, DdpTwoNodesOfTwo) {
  // 3 local steps x 2 buckets: the comparison covers the bucket assignment.
  EXPECT_EQ(expect_conformance(Strategy::ddp, 2, 2, false), 6u);
}

TEST(StrategyConformance, DdpSyncPhasesThreeNodesOfOne) {
  expect_conformance(Strategy::ddp, 3, 1, true);
}

TEST(StrategyConformance, TopkTwoNodesOfTwo) {
  expect_conformance(Strategy::topk, 2, 2, false);
}

TEST(StrategyConformance, HsadmmSyncPhasesOneNodeOfThree) {
  expect_conformance(Strategy::hsadmm, 1, 3, true);
}

}  // namespace
}  // namespace prunex::test
