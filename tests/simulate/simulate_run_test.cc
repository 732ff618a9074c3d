// Simulated runs against closed forms on an uncongested star (tests/common/sim_topologies.h:
// GPU 10 TFLOP/s x 0.5 efficiency, 800 GB/s memory): every step of these plans runs alone,
// so the iteration is the sum of compute = flops / effective FLOP/s, memory = bytes / memory
// bandwidth, and each collective's alpha-beta closed form (netmodel/closed_form.h).
// The byte counts are small_cnn's by hand (see tests/engine/plan_builder_test.cc).
#include <gtest/gtest.h>

#include "engine/simulated_masks.h"
#include "engine/sparsity_spec.h"
#include "netmodel/closed_form.h"
#include "simulate/fork_run.h"
#include "simulate/simulate_run.h"
#include "tests/common/sim_topologies.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

constexpr double kD = 66410 * 4.0;                                    // dense bytes
constexpr double kC = (864 + 384 + 4608 + 9216 + 18432 + 650) * 4.0;  // compact, keep 0.5
constexpr std::size_t kBits = 180;                                    // mask bit bytes
constexpr double kFlops = 5e12, kMemBw = 800e9;

sim::SimulateSpec small_spec(Strategy s, int iterations = 1, int t_freeze = 0) {
  sim::SimulateSpec spec;
  spec.topology = test::star_topology(2, 2);
  spec.sim.nodes = 2;
  spec.sim.gpus_per_node = 2;
  spec.layout = make_layout("small_cnn");
  spec.plan.run.strategy = s;
  const SparsitySpec sp =
      SparsitySpec::build(spec.layout, parse_sparsity_kinds("channel"), KeepRate::of_fraction(0.5));
  spec.mask = synthetic_union_mask(spec.layout, sp, 0.0, 2);
  spec.iterations = iterations;
  spec.t_freeze = t_freeze;
  return spec;
}

double cf(CollectiveOp op, Group g, double bytes) {
  return sim::closed_form_seconds(test::star_topology(2, 2), 2, 2, op, sim::Algo::ring, g,
                                  static_cast<std::size_t>(bytes));
}

TEST(SimulateRun, HsadmmIterationIsTheSumOfClosedForms) {
  const sim::SimulateSpec spec = small_spec(Strategy::hsadmm, 4, 2);
  const auto r = sim::fork_run([&] {
    const auto res = sim::simulate_run(spec);
    const auto& its = res.run.iterations;
    const auto& inter = its[0].phase_seconds.at(Phase::inter_allreduce);
    return std::vector<double>{its[0].wall_seconds,
                               its[2].wall_seconds,
                               its[0].bytes.intra,
                               its[0].bytes.inter,
                               its[0].bytes.world,
                               inter[0],
                               inter[1],
                               inter[2],
                               double(its[0].mask_frozen),
                               double(its[1].mask_frozen),
                               double(its[2].phase_seconds.count(Phase::mask_sync)),
                               its[0].density.at("features.3.weight"),
                               res.time_per_epoch_s,
                               double(res.run.trace.size()),
                               its[0].phase_seconds.at(Phase::pack)[0],
                               its[0].phase_seconds.at(Phase::pack)[1],
                               its[1].wall_seconds,
                               its[3].wall_seconds};
  });
  const double fwd = make_layout("small_cnn").forward_flops();
  const double compute = 3 * fwd * 12500 / kFlops;  // the 4 GPUs' shard: 50000 / 4
  // 98 steps x 10D (SGD + proximal), 5D, 4D, D (projection), 3C, C + D, 24D.
  const double memory = (98 * 10 * kD + 5 * kD + 4 * kD + kD + 3 * kC + kC + kD + 24 * kD) / kMemBw;
  const double frozen = compute + memory + cf(CollectiveOp::allreduce, Group::intra, kD) +
                        cf(CollectiveOp::broadcast, Group::intra, kBits) +
                        cf(CollectiveOp::allreduce, Group::inter, kC) +
                        cf(CollectiveOp::broadcast, Group::intra, kC);
  // The compaction plan is built (2C on every rank) until the first frozen iteration (3), and
  // the iteration that freezes the mask (2) projects the global z once more (D).
  const double build = 2 * kC / kMemBw, reproject = kD / kMemBw;
  const double full = frozen + cf(CollectiveOp::allreduce, Group::inter, kBits) + build;
  EXPECT_NEAR(r[0], full, 1e-9 * full);
  EXPECT_NEAR(r[16], full + reproject, 1e-9 * full);
  EXPECT_NEAR(r[1], frozen + build, 1e-9 * frozen);  // iteration 3 > t_freeze: no mask_sync
  EXPECT_NEAR(r[17], frozen, 1e-9 * frozen);         // iteration 4 reuses the plan
  EXPECT_DOUBLE_EQ(r[2], kD + kBits + kC);
  EXPECT_DOUBLE_EQ(r[3], kBits + kC);
  EXPECT_DOUBLE_EQ(r[4], 14 * 13 * 8);  // residual sums, counted not simulated
  EXPECT_NEAR(r[5], cf(CollectiveOp::allreduce, Group::inter, kC), 1e-12);  // leader
  EXPECT_EQ(r[6], 0.0);                                                     // follower
  EXPECT_GT(r[7], 0.0);                                                     // next leader
  EXPECT_EQ(r[8], 0.0);
  EXPECT_EQ(r[9], 1.0);  // frozen after iteration t_freeze = 2
  EXPECT_EQ(r[10], 0.0);
  EXPECT_DOUBLE_EQ(r[11], 0.5);
  EXPECT_NEAR(r[12], (2 * full + reproject + 2 * frozen + build) / 4, 1e-9 * full);
  // Trace, one event per rank per step: 10 steps on all 4 ranks (11 with the plan build, 12
  // with the second projection), the leaders' steps (mask_sync, pack, inter_allreduce;
  // frozen: no mask_sync) on the 2 leaders.
  EXPECT_EQ(r[13], (4 * 11 + 2 * 3) + (4 * 12 + 2 * 3) + (4 * 11 + 2 * 2) + (4 * 10 + 2 * 2));
  EXPECT_NEAR(r[14], 5 * kC / kMemBw, 1e-15);  // the leader builds the plan and packs
  EXPECT_NEAR(r[15], 2 * kC / kMemBw, 1e-15);  // the follower only builds it
}

TEST(SimulateRun, CalibratedMemorySpeedsPerPhaseAndKey) {
  // pack at 10 GB/s, the compaction plan build at 2 GB/s, projection at 4 GB/s; unpack has no
  // calibrated speed and keeps the topology's 800 GB/s.
  sim::SimulateSpec spec = small_spec(Strategy::hsadmm, 1);
  spec.sim.memory_Bps = {{"pack", 10e9}, {"compaction_plan", 2e9}, {"projection", 4e9}};
  const auto r = sim::fork_run([&] {
    const auto res = sim::simulate_run(spec);
    const auto& ph = res.run.iterations[0].phase_seconds;
    return std::vector<double>{ph.at(Phase::pack)[0], ph.at(Phase::pack)[1],
                               ph.at(Phase::projection)[0], ph.at(Phase::unpack)[0]};
  });
  EXPECT_NEAR(r[0], 2 * kC / 2e9 + 3 * kC / 10e9, 1e-15);  // leader: build + pack
  EXPECT_NEAR(r[1], 2 * kC / 2e9, 1e-15);                  // follower: build
  EXPECT_NEAR(r[2], kD / 4e9, 1e-15);
  EXPECT_NEAR(r[3], (kC + kD) / kMemBw, 1e-15);
}

TEST(SimulateRun, DdpStepRepeatsAndCountsInterAsWorld) {
  // small_cnn fits in DDP's first bucket: its all-reduce starts when backward ends.
  const sim::SimulateSpec spec = small_spec(Strategy::ddp);
  const auto r = sim::fork_run([&] {
    const auto res = sim::simulate_run(spec);
    const auto& it = res.run.iterations[0];
    return std::vector<double>{it.wall_seconds,      it.bytes.world,
                               it.bytes.inter,       it.phase_seconds.at(Phase::allreduce)[3],
                               it.dense_inter_bytes, res.time_per_epoch_s};
  });
  const double fwd = make_layout("small_cnn").forward_flops();
  const double ar = cf(CollectiveOp::allreduce, Group::world, kD);
  const double step = 3 * fwd * 12500 / 98 / kFlops + ar + 7 * kD / kMemBw;
  EXPECT_NEAR(r[0], 98 * step, 1e-9 * 98 * step);
  EXPECT_DOUBLE_EQ(r[1], 98 * kD);
  EXPECT_DOUBLE_EQ(r[2], 98 * kD);
  EXPECT_NEAR(r[3], 98 * ar, 1e-12);
  EXPECT_DOUBLE_EQ(r[4], 98 * kD);
  EXPECT_NEAR(r[5], r[0], 1e-12);  // one local epoch per iteration
}

}  // namespace
}  // namespace prunex
