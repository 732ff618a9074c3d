// Conformance of the live strategies as `prunex train` runs them (LibTorch models, local
// steps, hooks): every outer iteration of every strategy, on every rank, makes exactly the
// collectives of its plan — plan_calls() of the plan for that iteration, repeated
// plan_repeats() times for the strategies that synchronise every step — and works in the
// phases of its plan in the plan's order (plan_phases(): memory steps included, so a rank
// that packs where the plan has only the leaders pack fails). Ranks are threads
// over the in-process communicator; the data are synthetic.
#include <torch/torch.h>

#include <functional>
#include <map>

#include "backends/inproc/inproc_communicator.h"
#include "engine/plan_builder.h"
#include "settings/plan_settings.h"
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
  c.model = uses_ddp_buckets(strategy) ? "resnet20" : "small_cnn";
  c.stable_steps = 1;  // pactrain: compact from the second step on
  c.synthetic_samples = 512;
  c.test_samples = 64;
  c.batch = 16;
  c.local_steps = 3;
  c.iterations = 4;
  c.hsadmm.t_freeze = 2;  // hsadmm: unfrozen 1-2, frozen 3-4
  c.freeze_after = 0;
  c.hsadmm.bucket_mib = 0.0625;  // 64 KiB buckets: several inter-node buckets
  c.lr = 0.01;
  return c;
}

// cgx, per rank: the same broadcasts; the sends' bytes per group gathered for the totals.
std::map<Group, double> live_sent, plan_sent;
void totals_check(const NodeGrouping&, int, const std::vector<CallRecord>& got,
                  const std::vector<CallRecord>& want) {
  std::vector<CallRecord> gb, wb;
  for (const auto& c : got) {
    if (c.op == CollectiveOp::send) live_sent[c.group] += static_cast<double>(c.bytes);
    if (c.op == CollectiveOp::broadcast) gb.push_back(c);
  }
  for (const auto& c : want) {
    if (c.op == CollectiveOp::send) plan_sent[c.group] += static_cast<double>(c.bytes);
    if (c.op == CollectiveOp::broadcast) wb.push_back(c);
  }
  EXPECT_TRUE(same_calls(gb, wb));
}

// The live clock, keeping the phases this rank worked in (conformance.h add_phase).
class RecordingClock : public PhaseClock {
 public:
  using PhaseClock::PhaseClock;
  void add(Phase phase, double start, double seconds) override {
    add_phase(seen, phase);
    PhaseClock::add(phase, start, seconds);
  }
  void add_wait(Phase phase, double start, double seconds) override {
    PhaseClock::add(phase, start, seconds);  // no step of its own
  }
  std::vector<Phase> seen;
};

// Returns the number of collectives rank 0 made in the first iteration.
// cgx: the plan charges every rank the mean chunk's bytes, so per rank the sends differ by the
// chunks' sizes; summed over the ranks, per group, they are exact (compared separately below).
// tweak: settings beyond the strategy's defaults (wire dtype, pipelining, ternary, ...).
std::size_t expect_conformance(Strategy strategy, int nodes, int gpus_per_node, bool sync_phases,
                               const std::function<void(TrainConfig&)>& tweak = {}) {
  SCOPED_TRACE(std::string(strategy_name(strategy)) + (sync_phases ? " --sync-phases" : ""));
  torch::set_num_threads(1);
  const NodeGrouping grouping{nodes * gpus_per_node, gpus_per_node};
  TrainConfig cfg = config_for(strategy);
  cfg.sync_phases = sync_phases;
  if (tweak) tweak(cfg);
  std::vector<std::vector<LocalIteration>> local(grouping.world_size);
  std::vector<std::vector<std::vector<CallRecord>>> calls(grouping.world_size);
  std::vector<std::vector<std::vector<Phase>>> phases(grouping.world_size);
  std::vector<nlohmann::json> records(grouping.world_size);  // each rank's recorded config
  std::vector<ModelLayout> layouts(grouping.world_size);
  spawn_ranks(grouping, [&](Communicator& comm) {
    TrainSetup s = make_setup(cfg, comm);
    auto live = make_live_strategy(s, comm);
    RecordingClock clock(now_seconds(), cfg.sync_phases);
    records[comm.world_rank()] = config_to_json(cfg);
    records[comm.world_rank()].update(run_facts(s));
    layouts[comm.world_rank()] = s.layout;
    for (int k = 1; k <= cfg.iterations; ++k) {
      comm.clear_calls();
      local[comm.world_rank()].push_back(live->iterate(k, clock));
      calls[comm.world_rank()].push_back(comm.calls());
      phases[comm.world_rank()].push_back(std::move(clock.seen));
      clock.seen.clear();
    }
  });
  for (int r = 0; r < grouping.world_size; ++r) {
    const ModelLayout& layout = layouts[r];
    for (int k = 1; k <= cfg.iterations; ++k) {
      SCOPED_TRACE("rank " + std::to_string(r) + ", iteration " + std::to_string(k));
      auto frozen_after = [&](int i) { return i >= 1 && local[r][i - 1].frozen; };
      // The plan as simulate and calibrate build it from the run's record.
      PlanInputs in = plan_inputs_of_config(records[r], "rank " + std::to_string(r));
      in.layout = &layout;
      in.global_mask = &local[r][k - 1].payload_mask;
      set_freeze_state(in, frozen_after(k - 2), frozen_after(k - 1), frozen_after(k));
      const IterationPlan plan = build_plan(in);
      std::vector<CallRecord> want;
      for (long i = 0; i < plan_repeats(in); ++i)
        for (const auto& c : plan_calls(plan, grouping, r)) want.push_back(c);
      EXPECT_TRUE(same_phases(phases[r][k - 1], plan_phases(plan, grouping, r, plan_repeats(in))));
      std::vector<CallRecord> got = without_barriers(calls[r][k - 1]);
      if (strategy == Strategy::pactrain && k == 1) {
        // The plan is the steady state (every bucket compact); the first step still sends
        // whole buckets. Steps 2 and 3 must match the plan's second and third repeat.
        const std::size_t per_step = want.size() / plan_repeats(in);
        got.erase(got.begin(), got.begin() + static_cast<long>(per_step));
        want.erase(want.begin(), want.begin() + static_cast<long>(per_step));
      }
      if (strategy == Strategy::cgx) {
        totals_check(grouping, r, got, want);
        continue;
      }
      EXPECT_TRUE(same_calls(got, want));
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

TEST(StrategyConformance, HsadmmBf16PipelinedTwoNodesOfTwo) {
  // The compact payload in bf16 (half the bytes) and pipelined buckets (another order).
  expect_conformance(Strategy::hsadmm, 2, 2, false, [](TrainConfig& c) {
    c.hsadmm.wire_dtype = DType::bf16;
    c.hsadmm.pipeline_buckets = true;
  });
}

TEST(StrategyConformance, HsadmmRailFp16TwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_rail, 2, 2, false,
                     [](TrainConfig& c) { c.hsadmm.wire_dtype = DType::f16; });
}

TEST(StrategyConformance, CgxTwoBitsThreeNodesOfOne) {
  live_sent.clear();
  plan_sent.clear();
  expect_conformance(Strategy::cgx, 3, 1, false, [](TrainConfig& c) {
    c.cgx.bits = 2;
    c.cgx.bucket_size = 256;
  });
  EXPECT_NEAR(live_sent[Group::inter], plan_sent[Group::inter], 0.001 * live_sent[Group::inter]);
}

TEST(StrategyConformance, HsadmmFlatTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_flat, 2, 2, false);
}

TEST(StrategyConformance, DdpTwoNodesOfTwo) {
  // 3 local steps x 2 buckets: the comparison covers the bucket assignment.
  EXPECT_EQ(expect_conformance(Strategy::ddp, 2, 2, false), 6u);
}

TEST(StrategyConformance, DdpSmallBucketCapTwoNodesOfTwo) {
  // --bucket-cap-mb 0.01: after resnet20's first (1 MiB) bucket, its first layers' 10k floats
  // go in buckets of 10 KiB, live and in the plan: more than the default's 2 per step.
  EXPECT_GT(expect_conformance(Strategy::ddp, 2, 2, false,
                               [](TrainConfig& c) { c.ddp.bucket_cap_mb = 0.01; }),
            6u);
}

TEST(StrategyConformance, DdpSyncPhasesThreeNodesOfOne) {
  expect_conformance(Strategy::ddp, 3, 1, true);
}

TEST(StrategyConformance, TopkTwoNodesOfTwo) {
  expect_conformance(Strategy::topk, 2, 2, false);
}

TEST(StrategyConformance, Fp16TwoNodesOfTwo) {
  EXPECT_EQ(expect_conformance(Strategy::fp16, 2, 2, false), 6u);
}

TEST(StrategyConformance, PactrainTwoNodesOfTwo) {
  expect_conformance(Strategy::pactrain, 2, 2, false);
}

TEST(StrategyConformance, PactrainTernaryThreeNodesOfOne) {
  // Per bucket and step: the scaler's MAX, then the int8 levels.
  EXPECT_EQ(expect_conformance(Strategy::pactrain, 3, 1, false,
                               [](TrainConfig& c) { c.pactrain.ternary = true; }),
            12u);
}

TEST(StrategyConformance, PowersgdTwoNodesOfTwo) {
  // Compressed from the first step (the plan is the steady state): per bucket and step the
  // whole tensors, P, Q; 2 buckets x 3 local steps.
  EXPECT_EQ(expect_conformance(Strategy::powersgd, 2, 2, false,
                               [](TrainConfig& c) { c.start_powersgd_iter = 0; }),
            18u);
}

TEST(StrategyConformance, PowersgdRankFourColdStartThreeNodesOfOne) {
  // Rank 4 (QR instead of Gram-Schmidt), a fresh Q every step, no error feedback.
  expect_conformance(Strategy::powersgd, 3, 1, false, [](TrainConfig& c) {
    c.start_powersgd_iter = 0;
    c.powersgd.matrix_approximation_rank = 4;
    c.warm_start = false;
    c.use_error_feedback = false;
  });
}

TEST(StrategyConformance, CgxTwoNodesOfTwoSendsWhatThePlanCharges) {
  live_sent.clear();
  plan_sent.clear();
  expect_conformance(Strategy::cgx, 2, 2, false);
  for (Group g : {Group::intra, Group::inter}) {
    SCOPED_TRACE(std::string(group_name(g)));
    EXPECT_GT(live_sent[g], 0);
    // The plan rounds each step's mean block down to whole bytes: at most 1 byte per step.
    EXPECT_NEAR(live_sent[g], plan_sent[g], 0.001 * live_sent[g]);
  }
}

TEST(StrategyConformance, HsadmmSyncPhasesOneNodeOfThree) {
  expect_conformance(Strategy::hsadmm, 1, 3, true);
}

}  // namespace
}  // namespace prunex::test
