// train --backend nccl splits a run's traffic: the control communicator carries host buffers
// (records, evaluation, batch-norm averages), the data communicator the strategy's payload
// (workloads/train/train_backend.h). On 4 MPI ranks (2 nodes x 2) with three distinct MPI
// communicators that split changes nothing: the same losses, accuracies and bytes per tier as
// one communicator for everything. A payload collective sent on the control communicator
// would vanish from the bytes, and a control one on the data communicator would add to them.
#include <gtest/gtest.h>

#include "backends/mpi/mpi_communicator.h"
#include "workloads/train/trainer.h"

namespace prunex {
namespace {

// 2 iterations of small_cnn on 256 synthetic images, 2 ranks a node; nothing is written.
TrainConfig small_run(Strategy strategy, int batch) {
  TrainConfig c;
  c.dataset = "synthetic";
  c.synthetic_samples = 256;
  c.model = "small_cnn";
  c.gpus_per_node = 2;
  c.iterations = 2;
  c.batch = batch;
  c.strategy = strategy;
  c.out = "unused";  // no checkpoints
  return c;
}

TEST(LiveTraining, SeparateControlAndPayloadCommunicatorsChangeNothing) {
  auto one = make_mpi_communicator(2);
  if (one->size(Group::world) != 4) GTEST_SKIP() << "written for 4 ranks (2 nodes x 2)";
  auto control = make_mpi_communicator(2), data = make_mpi_communicator(2);
  for (Strategy s : all_strategies()) {
    SCOPED_TRACE(std::string(strategy_name(s)));
    TrainConfig c = small_run(s, 64);
    if (s == Strategy::powersgd) c.start_powersgd_iter = 0;
    const RunRecord a = run_training(c, *one);
    TrainBackend split;
    split.control = control.get();
    split.data = data.get();
    const RunRecord b = run_training(c, split);
    if (one->world_rank() != 0) continue;  // the records are complete on rank 0
    ASSERT_EQ(a.iterations.size(), 2u);
    ASSERT_EQ(b.iterations.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(a.iterations[i].loss, b.iterations[i].loss) << "iteration " << i + 1;
      EXPECT_EQ(a.iterations[i].accuracy, b.iterations[i].accuracy) << "iteration " << i + 1;
      EXPECT_EQ(a.iterations[i].bytes.intra, b.iterations[i].bytes.intra) << "iteration " << i + 1;
      EXPECT_EQ(a.iterations[i].bytes.inter, b.iterations[i].bytes.inter) << "iteration " << i + 1;
      EXPECT_GT(a.iterations[i].bytes.intra + a.iterations[i].bytes.inter, 0.0);
    }
  }
}

// PowerSGD at full rank loses nothing: with r = min(rows, cols) and every matrix compressed,
// P spans the summed gradient's columns (or all of its space), so P Q^T = P P^T mean(M) is
// the mean itself, and the run is DDP's up to rounding (Gram-Schmidt and QR in fp32).
TEST(LiveTraining, PowerSgdAtFullRankTrainsAsDdp) {
  auto comm = make_mpi_communicator(2);
  if (comm->size(Group::world) != 4) GTEST_SKIP() << "written for 4 ranks (2 nodes x 2)";
  TrainConfig c = small_run(Strategy::ddp, 32);
  c.lr = 0.05;
  const RunRecord ddp = run_training(c, *comm);
  c.strategy = Strategy::powersgd;
  c.start_powersgd_iter = 0;
  c.powersgd.matrix_approximation_rank = 1 << 20;
  c.powersgd.min_compression_rate = 0;
  const RunRecord full = run_training(c, *comm);
  if (comm->world_rank() != 0) return;
  ASSERT_EQ(ddp.iterations.size(), 2u);
  ASSERT_EQ(full.iterations.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i + 1));
    EXPECT_NEAR(*full.iterations[i].loss, *ddp.iterations[i].loss, 1e-4 * *ddp.iterations[i].loss);
    // Every tensor as factors: more floats than the dense buckets, not fewer.
    EXPECT_GT(full.iterations[i].bytes.inter, ddp.iterations[i].bytes.inter);
  }
}

}  // namespace
}  // namespace prunex
