// A run stopped after iteration 2 and resumed from its checkpoint equals the uninterrupted
// run, for every strategy, bit for bit: the loss, accuracy and test loss of every iteration
// in the records, and every rank's checkpoint file after iteration 4 (theta, z, z_i, u, v,
// momentum, masks, the codecs' state, the generators). The trainer itself (run_training, its
// checkpoint writer and reader) on ranks that are threads over the in-process communicator;
// tests/cli/checkpoint.sh does the same through mpirun for two strategies, and the refusals.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "backends/inproc/inproc_communicator.h"
#include "records/run_record.h"
#include "workloads/train/trainer.h"

namespace prunex::test {
namespace {

namespace fs = std::filesystem;

// As tests/cli/checkpoint.sh's runs: the H-SADMM strategies on 2 nodes of 2 (their node
// groups), the flat ones on 2 nodes of 1; every rank's state crosses the inter-node link.
TrainConfig config_for(Strategy strategy, int iterations, const std::string& out) {
  TrainConfig c;
  c.strategy = strategy;
  c.gpus_per_node = packs_compact_payload(strategy) || strategy == Strategy::hsadmm_flat ? 2 : 1;
  c.dataset = "synthetic";
  c.synthetic_samples = 256;
  c.model = "small_cnn";
  c.batch = 32;
  c.lr = 0.05;
  c.local_steps = 2;
  c.hsadmm.t_freeze = 3;      // the mask freezes between the stop and the end
  c.start_powersgd_iter = 1;  // powersgd compresses from its second step: Q, error, draws cross
  c.iterations = iterations;
  c.checkpoint_every = 1;
  c.out = out;
  return c;
}

RunRecord train(const TrainConfig& cfg) {
  RunRecord record;
  spawn_ranks(NodeGrouping{2 * cfg.gpus_per_node, cfg.gpus_per_node}, [&](Communicator& comm) {
    RunRecord r = run_training(cfg, comm);
    if (comm.world_rank() == 0) record = std::move(r);
  });
  return record;
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void expect_resumed_equals_uninterrupted(Strategy strategy) {
  SCOPED_TRACE(std::string(strategy_name(strategy)));
  torch::set_num_threads(1);
  const fs::path dir = fs::temp_directory_path() /
                       ("prunex_checkpoint_resume_" + std::string(strategy_name(strategy)));
  fs::remove_all(dir);
  const RunRecord full = train(config_for(strategy, 4, (dir / "full").string()));
  train(config_for(strategy, 2, (dir / "first").string()));
  TrainConfig resumed_cfg = config_for(strategy, 4, (dir / "resumed").string());
  resumed_cfg.resume = (dir / "first" / "checkpoint").string();
  const RunRecord resumed = train(resumed_cfg);

  ASSERT_EQ(full.iterations.size(), 4u);
  ASSERT_EQ(resumed.iterations.size(), 4u);  // 2 from the checkpoint's record, 2 run
  EXPECT_TRUE(resumed.completed);
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE("iteration " + std::to_string(k + 1));
    const IterationRecord &a = full.iterations[k], &b = resumed.iterations[k];
    EXPECT_EQ(a.iteration, b.iteration);
    EXPECT_EQ(a.loss, b.loss);  // exact: the same operations on the same state
    EXPECT_EQ(a.accuracy, b.accuracy);
    EXPECT_EQ(a.extra.value("test_loss", -1.0), b.extra.value("test_loss", -1.0));
  }
  const int ranks = 2 * config_for(strategy, 4, "").gpus_per_node;
  for (int r = 0; r < ranks; ++r) {
    const std::string f = "checkpoint/iter-00000004/rank-0000" + std::to_string(r) + ".ckpt";
    EXPECT_EQ(file_bytes(dir / "full" / f), file_bytes(dir / "resumed" / f))
        << "rank " << r << "'s state after iteration 4 differs";
  }
  // Only the newest checkpoint is kept.
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(dir / "full" / "checkpoint"))
    kept.push_back(e.path().filename().string());
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"LATEST", "iter-00000004"}));
  fs::remove_all(dir);
}

TEST(CheckpointResume, Hsadmm) {
  expect_resumed_equals_uninterrupted(Strategy::hsadmm);
}
TEST(CheckpointResume, HsadmmFlat) {
  expect_resumed_equals_uninterrupted(Strategy::hsadmm_flat);
}
TEST(CheckpointResume, HsadmmRail) {
  expect_resumed_equals_uninterrupted(Strategy::hsadmm_rail);
}
TEST(CheckpointResume, Ddp) {
  expect_resumed_equals_uninterrupted(Strategy::ddp);
}
TEST(CheckpointResume, Topk) {
  expect_resumed_equals_uninterrupted(Strategy::topk);
}
TEST(CheckpointResume, Fp16) {
  expect_resumed_equals_uninterrupted(Strategy::fp16);
}
TEST(CheckpointResume, Pactrain) {
  expect_resumed_equals_uninterrupted(Strategy::pactrain);
}
TEST(CheckpointResume, Cgx) {
  expect_resumed_equals_uninterrupted(Strategy::cgx);
}
TEST(CheckpointResume, Powersgd) {
  expect_resumed_equals_uninterrupted(Strategy::powersgd);
}

}  // namespace
}  // namespace prunex::test
