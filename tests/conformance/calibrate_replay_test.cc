// `prunex calibrate --steps` models the plan a live run executed, for every strategy and the
// settings that change what an iteration sends: a short `prunex train` run (the trainer itself,
// ranks as threads, synthetic data) writes its metrics.json; calibrate's reader rebuilds the
// run's plan inputs from that file alone (settings/plan_settings.h); and each iteration's plan,
// run as many times as the strategy synchronises, must carry the bytes per tier that the live
// communicator counted in that iteration (an independent count: the live run's own calls).
// Settings that change the order but not the bytes (pipelining, DDP's overlap) are compared
// with what the run was told.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <functional>

#include "backends/inproc/inproc_communicator.h"
#include "calibration/calibration_runs.h"
#include "engine/tier_bytes.h"
#include "records/run_record.h"
#include "workloads/train/trainer.h"

namespace prunex::test {
namespace {

struct Case {
  const char* name;
  Strategy strategy;
  int nodes, gpus_per_node;
  std::function<void(TrainConfig&)> tweak;
};

TrainConfig config_for(const Case& c, const std::string& out) {
  TrainConfig cfg;
  cfg.strategy = c.strategy;
  cfg.dataset = "synthetic";
  cfg.model = uses_ddp_buckets(c.strategy) ? "resnet20" : "small_cnn";  // 2 DDP buckets
  cfg.synthetic_samples = 256;
  cfg.test_samples = 32;
  cfg.batch = 16;
  cfg.local_steps = 2;
  cfg.iterations = 3;
  cfg.hsadmm.t_freeze = 2;  // hsadmm: unfrozen, freezing, frozen
  cfg.freeze_after = 0;
  cfg.hsadmm.bucket_mib = 0.0625;  // several inter-node buckets
  cfg.stable_steps = 1;            // pactrain: compact from the second step on
  cfg.lr = 0.01;
  cfg.out = out;
  if (c.tweak) c.tweak(cfg);
  return cfg;
}

// Runs the trainer on the case's ranks; returns the path of its metrics.json.
std::string train(const TrainConfig& cfg, const NodeGrouping& grouping) {
  RunRecord record;
  spawn_ranks(grouping, [&](Communicator& comm) {
    RunRecord r = run_training(cfg, comm);
    if (comm.world_rank() == 0) record = std::move(r);
  });
  write_metrics(record, cfg.out);
  return cfg.out + "/metrics.json";
}

void expect_replayed(const Case& c) {
  SCOPED_TRACE(c.name);
  torch::set_num_threads(1);
  const std::string out =
      (std::filesystem::temp_directory_path() / ("prunex_calibrate_replay_" + std::string(c.name)))
          .string();
  std::filesystem::remove_all(out);
  const TrainConfig cfg = config_for(c, out);
  const NodeGrouping grouping{c.nodes * c.gpus_per_node, c.gpus_per_node};
  auto runs = sim::load_steps_runs({train(cfg, grouping)});
  sim::StepsRun& run = *runs.front();
  PlanInputs& in = run.in;
  EXPECT_EQ(in.run.strategy, c.strategy);
  EXPECT_EQ(in.nodes, c.nodes);
  EXPECT_EQ(in.gpus_per_node, c.gpus_per_node);
  EXPECT_EQ(in.run.hsadmm.pipeline_buckets, cfg.hsadmm.pipeline_buckets);
  EXPECT_EQ(in.ddp_overlap, !cfg.sync_phases);
  const auto& its = run.metrics["iterations"];
  ASSERT_EQ(its.size(), static_cast<size_t>(cfg.iterations));
  auto frozen_after = [&](long k) { return k >= 0 && its[k].value("mask_frozen", false); };
  for (size_t k = 0; k < its.size(); ++k) {
    SCOPED_TRACE("iteration " + std::to_string(k + 1));
    // pactrain's plan is its steady state; its first step still sends whole buckets.
    if (c.strategy == Strategy::pactrain && k == 0) continue;
    const long i = static_cast<long>(k);
    set_freeze_state(in, frozen_after(i - 2), frozen_after(i - 1), frozen_after(i));
    if (!run.masks.empty()) in.global_mask = &run.masks.of(static_cast<int>(k) + 1);
    const IterationPlan plan = build_plan(in);
    std::vector<CallRecord> calls;
    for (long r = 0; r < plan_repeats(in); ++r)
      for (const auto& call : plan_calls(plan, grouping, 0)) calls.push_back(call);
    const TierBytes want = tier_bytes(calls, in.run.strategy, grouping);
    const auto& got = its[k]["bytes"];
    // cgx: the plan charges every rank the mean chunk; rank 0's chunks differ from it by the
    // rounding of the bucket split (the conformance test checks the sums over ranks exactly).
    const double tolerance = c.strategy == Strategy::cgx ? 0.02 : 0;
    EXPECT_NEAR(got["intra"].get<double>(), want.intra, tolerance * want.intra);
    EXPECT_NEAR(got["inter"].get<double>(), want.inter, tolerance * want.inter);
    EXPECT_NEAR(got["world"].get<double>(), want.world, tolerance * want.world);
  }
  std::filesystem::remove_all(out);
}

TEST(CalibrateReplay, EveryStrategyAndWireSetting) {
  const std::vector<Case> cases = {
      {"hsadmm", Strategy::hsadmm, 2, 2, {}},
      {"hsadmm_bf16_pipelined", Strategy::hsadmm, 2, 2,
       [](TrainConfig& c) {
         c.hsadmm.wire_dtype = DType::bf16;
         c.hsadmm.pipeline_buckets = true;
       }},
      {"hsadmm_rail_fp16", Strategy::hsadmm_rail, 2, 2,
       [](TrainConfig& c) { c.hsadmm.wire_dtype = DType::f16; }},
      {"hsadmm_flat", Strategy::hsadmm_flat, 2, 2, {}},
      {"ddp", Strategy::ddp, 2, 2, {}},
      {"ddp_sync_phases", Strategy::ddp, 3, 1, [](TrainConfig& c) { c.sync_phases = true; }},
      {"fp16", Strategy::fp16, 2, 2, {}},
      {"topk", Strategy::topk, 2, 2, [](TrainConfig& c) { c.topk.topk_ratio = 0.05; }},
      {"pactrain_ternary", Strategy::pactrain, 3, 1,
       [](TrainConfig& c) {
         c.pactrain.ternary = true;
         c.pactrain.prune_ratio = 0.7;
       }},
      {"cgx_2bit", Strategy::cgx, 2, 2,
       [](TrainConfig& c) {
         c.cgx.bits = 2;
         c.cgx.bucket_size = 256;
       }},
  };
  for (const auto& c : cases) expect_replayed(c);
}

}  // namespace
}  // namespace prunex::test
