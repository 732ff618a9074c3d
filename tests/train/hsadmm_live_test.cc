// The live H-SADMM strategy on 4 real ranks as 2 emulated nodes x 2, synthetic data, 2 outer
// iterations, with the mask frozen after iteration 1 so iteration 2 runs on a fixed mask:
// every rank holds the same z; z keeps exactly round(0.5 * C_in) input channels in every
// pruned layer; the leaders' inter-node payload equals the compact size worked out from
// the layer shapes alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/mpi/mpi_communicator.h"
#include "engine/phases.h"
#include "engine/tier_bytes.h"
#include "workloads/layers/model_zoo.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/local_steps.h"

namespace prunex {
namespace {

TrainConfig small_config() {
  TrainConfig c;
  c.dataset = "synthetic";
  c.synthetic_samples = 512;
  c.model = "small_cnn";
  c.gpus_per_node = 2;
  c.iterations = 2;
  c.batch = 64;
  c.lr = 0.05;
  c.hsadmm.t_freeze = 1;
  return c;
}

TEST(LiveHsadmm, ConsistentMaskedZAndPredictedPayload) {
  auto comm = make_mpi_communicator(2);
  if (comm->size(Group::world) != 4) GTEST_SKIP() << "written for 4 ranks (2 nodes x 2)";
  TrainSetup s = make_setup(small_config(), *comm);
  auto strategy = make_hsadmm(s, *comm, Strategy::hsadmm);
  PhaseClock clock(now_seconds());
  strategy->iterate(1, clock);
  comm->clear_calls();
  const LocalIteration it2 = strategy->iterate(2, clock);
  EXPECT_TRUE(it2.frozen);
  const double inter_bytes = tier_bytes(comm->calls(), Strategy::hsadmm, comm->grouping()).inter;

  auto z = parameters_in_layout_order(strategy->eval_model(), s.layout);
  const ModelLayout layout = make_layout("small_cnn", 10, 32, 3);

  // Same z everywhere, bit for bit.
  for (size_t l = 0; l < z.size(); ++l) {
    const int64_t n = z[l].numel();
    std::vector<float> all(n * 4);
    comm->allgather(z[l].data_ptr<float>(), all.data(), n, DType::f32, Group::world);
    for (int r = 1; r < 4; ++r)
      ASSERT_EQ(0, std::memcmp(all.data(), all.data() + r * n, n * 4)) << layout.layers[l].name;
  }

  // Kept channels and the payload, from the shapes: conv weights after the first keep
  // floor(0.5 * C_in + 0.5) input channels; everything else travels whole.
  int64_t expected_floats = 0;
  bool first_conv = true;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const auto& info = layout.layers[l];
    if (info.role != LayerRole::conv_weight || first_conv) {
      if (info.role == LayerRole::conv_weight) first_conv = false;
      expected_floats += info.numel();
      continue;
    }
    const int64_t out = info.shape[0], in = info.shape[1], k = info.shape[2] * info.shape[3];
    const int64_t keep = static_cast<int64_t>(std::floor(0.5 * in + 0.5));
    expected_floats += out * keep * k;
    auto w = z[l].reshape({out, in, k});
    const int64_t nonzero_channels =
        w.abs().sum(std::vector<int64_t>{0, 2}).gt(0).sum().item().toLong();
    EXPECT_EQ(nonzero_channels, keep) << info.name;
    // Masked retraining: after the freeze theta lives on the same sparse manifold.
    auto t = s.params[l].reshape({out, in, k});
    const int64_t theta_channels =
        t.abs().sum(std::vector<int64_t>{0, 2}).gt(0).sum().item().toLong();
    EXPECT_EQ(theta_channels, keep) << info.name << " (theta)";
  }
  if (comm->is_leader())
    EXPECT_EQ(inter_bytes, expected_floats * 4.0);
  else
    EXPECT_EQ(inter_bytes, 0.0);
}

// Every strategy, with and without --sync-phases (a barrier before each communication phase,
// its wait timed as sync_wait; DDP then all-reduces after backward with blocking calls).
TEST(LiveHsadmm, EveryStrategyRunsTwoIterations) {
  auto comm = make_mpi_communicator(2);
  for (const bool sync : {false, true})
    for (const char* name : {"hsadmm", "hsadmm-flat", "ddp", "topk"}) {
      SCOPED_TRACE(std::string(name) + (sync ? " --sync-phases" : ""));
      TrainConfig c = small_config();
      c.strategy = parse_strategy(name);
      c.hsadmm.t_freeze = 0;
      c.sync_phases = sync;
      TrainSetup s = make_setup(c, *comm);
      std::unique_ptr<LiveStrategy> st = make_live_strategy(s, *comm);
      // DDP: each rank's own gradients of the last local step, as its hooks see them.
      std::vector<torch::Tensor> local(s.params.size());
      if (c.strategy == Strategy::ddp)
        for (size_t l = 0; l < s.params.size(); ++l)
          s.params[l].register_hook([&local, l](torch::Tensor g) { local[l] = g.clone(); });
      PhaseClock clock(now_seconds(), sync);
      double loss = 0;
      std::vector<double> seconds;
      for (int k = 1; k <= 2; ++k) {
        loss = st->iterate(k, clock).loss;
        seconds = clock.take_iteration();
      }
      EXPECT_TRUE(std::isfinite(loss)) << name;
      // The barrier's wait is its own phase, only in the measurement mode; the communication
      // phase is still timed.
      const double wait = seconds[static_cast<int>(Phase::sync_wait)];
      if (sync)
        EXPECT_GT(wait, 0.0);
      else
        EXPECT_EQ(wait, 0.0);
      const Phase comm_phase = c.strategy == Strategy::hsadmm ? Phase::intra_allreduce
                               : c.strategy == Strategy::topk ? Phase::allgather
                                                              : Phase::allreduce;
      EXPECT_GT(seconds[static_cast<int>(comm_phase)], 0.0);
      if (c.strategy == Strategy::ddp) {
        // The gradient applied is the mean of the ranks' own gradients (summed here with a
        // second all-reduce and divided by hand), not their sum.
        const int world = comm->size(Group::world);
        for (size_t l = 0; l < s.params.size(); ++l) {
          auto sum = local[l].contiguous().clone();
          comm->allreduce(sum.data_ptr<float>(), sum.numel(), DType::f32, ReduceOp::sum,
                          Group::world);
          const auto want = sum / static_cast<float>(world);
          const double err = (s.params[l].grad() - want).abs().max().item<double>();
          EXPECT_LE(err, 1e-6 * (1 + want.abs().max().item<double>())) << "layer " << l;
        }
      }
      if (c.strategy == Strategy::ddp || c.strategy == Strategy::topk) {
        // Both apply the same averaged gradient everywhere: the models stay identical.
        for (const auto& p : s.params) {
          const int64_t n = p.numel();
          std::vector<float> all(n * comm->size(Group::world));
          comm->allgather(p.data_ptr<float>(), all.data(), n, DType::f32, Group::world);
          for (int r = 1; r < comm->size(Group::world); ++r)
            ASSERT_EQ(0, std::memcmp(all.data(), all.data() + r * n, n * 4)) << name;
        }
      }
      const EvalResult ev = evaluate(st->eval_model(), s, *comm);
      EXPECT_GE(ev.accuracy, 0.0) << name;
      EXPECT_LE(ev.accuracy, 1.0) << name;
    }
}

}  // namespace
}  // namespace prunex
