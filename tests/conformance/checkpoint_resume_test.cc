// A run stopped after iteration 2 and resumed from its checkpoint equals the uninterrupted
// run, for every strategy, bit for bit: the loss, accuracy and test loss of every iteration
// in the records, and every rank's checkpoint file after iteration 4 (theta, z, z_i, u, v,
// momentum, masks, the codecs' state, the generators). The trainer itself (run_training, its
// checkpoint writer and reader) on ranks that are threads over the in-process communicator;
// tests/cli/checkpoint.sh does the same through mpirun for two strategies, and the refusals.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "backends/inproc/inproc_communicator.h"
#include "records/checkpoint.h"
#include "records/run_record.h"
#include "workloads/layers/model_zoo.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/train_checkpoint.h"
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

RunRecord train(const TrainConfig& cfg, int nodes = 2) {
  RunRecord record;
  spawn_ranks(NodeGrouping{nodes * cfg.gpus_per_node, cfg.gpus_per_node}, [&](Communicator& comm) {
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

// A resume on another shape (docs/training.md): a checkpoint of 2 nodes x 2 ranks, resumed on
// 1 x 2 and 3 x 2. Right after the restore, before any step, every rank holds rank 0's model
// (H-SADMM: theta = z, the saved global consensus) and momentum, z_i = z and zero duals, and
// the error feedback that was each rank's own is zero; the run then ends its 4 iterations.
void expect_resumes_on_other_shapes(Strategy strategy) {
  SCOPED_TRACE(std::string(strategy_name(strategy)));
  torch::set_num_threads(1);
  const fs::path dir =
      fs::temp_directory_path() / ("prunex_elastic_resume_" + std::string(strategy_name(strategy)));
  fs::remove_all(dir);
  TrainConfig first = config_for(strategy, 2, (dir / "first").string());
  first.gpus_per_node = 2;
  train(first);
  const CheckpointManifest m = read_latest_checkpoint((dir / "first" / "checkpoint").string());
  const StateSections saved = read_rank_checkpoint(m, 0);
  const bool admm = saved.count("consensus/z") > 0;
  for (const int nodes : {1, 3}) {
    SCOPED_TRACE(std::to_string(nodes) + " nodes x 2");
    TrainConfig cfg = config_for(strategy, 4, (dir / ("on" + std::to_string(nodes))).string());
    cfg.gpus_per_node = 2;
    cfg.resume = (dir / "first" / "checkpoint").string();
    const NodeGrouping grouping{2 * nodes, 2};
    std::vector<StateSections> after(grouping.world_size);
    spawn_ranks(grouping, [&](Communicator& comm) {
      TrainSetup s = make_setup(cfg, comm);
      auto live = make_live_strategy(s, comm);
      restore_checkpoint(m, s, *live, comm);
      after[comm.world_rank()] = save_rank_state(s, *live);
    });
    for (int r = 0; r < grouping.world_size; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      const StateSections& a = after[r];
      for (const auto& [name, bytes] : saved) {
        const bool model = name.rfind("model/", 0) == 0;
        if (name.rfind("momentum/", 0) == 0 || name.rfind("buffer/", 0) == 0 || (model && !admm)) {
          EXPECT_EQ(a.at(name), bytes) << name << ": not rank 0's";
        }
        const bool own = name.rfind("topk/residual/", 0) == 0 ||
                         name.rfind("powersgd/error/", 0) == 0 || name.rfind("cgx/acc/", 0) == 0 ||
                         name == "consensus/u" || name == "consensus/v";
        if (own) {
          EXPECT_EQ(a.at(name), std::string(bytes.size(), '\0')) << name << ": not zero";
        }
      }
      if (admm) {
        EXPECT_EQ(a.at("consensus/z"), saved.at("consensus/z"));
        EXPECT_EQ(a.at("consensus/z_i"), saved.at("consensus/z"));
        EXPECT_EQ(a.at("consensus/global_mask"), saved.at("consensus/global_mask"));
        // theta = z: each parameter's section is its slice of z (the flat layout).
        const ModelLayout layout = make_layout("small_cnn", 10, 32, 3);
        const FlatLayout flat(layout);
        const std::string& z = saved.at("consensus/z");
        for (size_t l = 0; l < layout.layers.size(); ++l)
          EXPECT_EQ(a.at("model/" + layout.layers[l].name),
                    z.substr(static_cast<size_t>(flat.offset[l]) * 4,
                             static_cast<size_t>(flat.numel[l]) * 4))
              << layout.layers[l].name << ": theta is not z";
      }
    }
    const RunRecord run = train(cfg, nodes);
    ASSERT_EQ(run.iterations.size(), 4u);
    EXPECT_TRUE(run.completed);
    EXPECT_TRUE(std::isfinite(*run.iterations.back().loss));
    EXPECT_EQ(run.summary_extra.at("resumed_on_another_shape")["world-size"], 4);
  }
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

TEST(ResumeOnAnotherShape, Hsadmm) {
  expect_resumes_on_other_shapes(Strategy::hsadmm);
}
TEST(ResumeOnAnotherShape, HsadmmFlat) {
  expect_resumes_on_other_shapes(Strategy::hsadmm_flat);
}
TEST(ResumeOnAnotherShape, HsadmmRail) {
  expect_resumes_on_other_shapes(Strategy::hsadmm_rail);
}
TEST(ResumeOnAnotherShape, Ddp) {
  expect_resumes_on_other_shapes(Strategy::ddp);
}
TEST(ResumeOnAnotherShape, Topk) {
  expect_resumes_on_other_shapes(Strategy::topk);
}
TEST(ResumeOnAnotherShape, Fp16) {
  expect_resumes_on_other_shapes(Strategy::fp16);
}
TEST(ResumeOnAnotherShape, Pactrain) {
  expect_resumes_on_other_shapes(Strategy::pactrain);
}
TEST(ResumeOnAnotherShape, Cgx) {
  expect_resumes_on_other_shapes(Strategy::cgx);
}
TEST(ResumeOnAnotherShape, Powersgd) {
  expect_resumes_on_other_shapes(Strategy::powersgd);
}

}  // namespace
}  // namespace prunex::test
