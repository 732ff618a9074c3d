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

TEST(LiveTraining, SeparateControlAndPayloadCommunicatorsChangeNothing) {
  auto one = make_mpi_communicator(2);
  if (one->size(Group::world) != 4) GTEST_SKIP() << "written for 4 ranks (2 nodes x 2)";
  auto control = make_mpi_communicator(2), data = make_mpi_communicator(2);
  for (const char* name :
       {"hsadmm", "hsadmm-flat", "hsadmm-rail", "ddp", "fp16", "topk", "pactrain", "cgx"}) {
    SCOPED_TRACE(name);
    TrainConfig c;
    c.dataset = "synthetic";
    c.synthetic_samples = 256;
    c.model = "small_cnn";
    c.gpus_per_node = 2;
    c.iterations = 2;
    c.batch = 64;
    c.strategy = parse_strategy(name);
    c.out = "unused";  // nothing is written: no checkpoints
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

}  // namespace
}  // namespace prunex
