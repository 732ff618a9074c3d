// Conformance of H-SADMM and its flat variant: the real HsadmmConsensus runs on ranks as
// threads (backends/inproc), and in every iteration — before the mask freezes, in the
// iteration that freezes it, and after — each rank's recorded collectives (op, group, dtype,
// bytes, in order) must be plan_calls() of the plan built for that iteration from the same
// payload mask and freeze state, and the phases it worked in must be the plan's from the
// consensus on (plan_phases()). Leaders and followers are both checked (followers skip the
// inter-node steps and, outside hsadmm-rail, the pack).
#include <cmath>
#include <mutex>

#include "backends/inproc/inproc_communicator.h"
#include "engine/hsadmm_consensus.h"
#include "engine/plan_builder.h"
#include "tests/conformance/conformance.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::test {
namespace {

struct Shape {
  int nodes, gpus_per_node;
};

// The phases a rank works in (conformance.h add_phase); waits are no steps of their own.
class RecordingTimer : public PhaseTimer {
 public:
  void add(Phase phase, double, double) override { add_phase(seen, phase); }
  void add_wait(Phase, double, double) override {}
  std::vector<Phase> seen;
};

// Per rank and iteration: what the live consensus did, and what it needs for the plan.
struct Observed {
  std::vector<CallRecord> calls;
  std::vector<Phase> phases;
  ModelMask payload_mask;
  bool frozen = false;
};

// Runs `iterations` consensus steps of `strategy` on small_cnn; theta differs by rank so
// node masks disagree and the union keeps more than the keep rate before freezing.
std::vector<std::vector<Observed>> run_consensus(Strategy strategy, Shape shape, int iterations,
                                                 int t_freeze, const ModelLayout& layout,
                                                 DType wire = DType::f32, bool pipelined = false) {
  const NodeGrouping grouping{shape.nodes * shape.gpus_per_node, shape.gpus_per_node};
  std::vector<std::vector<Observed>> seen(grouping.world_size);
  std::vector<float> theta0;
  for (const auto& l : layout.layers)
    for (int64_t i = 0; i < l.numel(); ++i)
      theta0.push_back(
          static_cast<float>(0.1 * std::sin(0.37 * static_cast<double>(theta0.size()))));
  spawn_ranks(grouping, [&](Communicator& comm) {
    HsadmmConfig cfg;
    cfg.t_freeze = t_freeze;
    const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5));
    // 64 KiB buckets, so the compact payload spans several buckets.
    HsadmmConsensus admm(layout, spec, cfg, int64_t(64) << 10, strategy, comm, theta0.data(), wire);
    admm.set_pipelined(pipelined);
    std::vector<float> theta(theta0.size());
    for (int k = 1; k <= iterations; ++k) {
      RecordingTimer timer;
      for (size_t i = 0; i < theta.size(); ++i)
        theta[i] = theta0[i] + 0.05f * static_cast<float>(std::cos(0.11 * static_cast<double>(i) *
                                                                   (comm.world_rank() + k)));
      comm.clear_calls();
      const ConsensusStep step = admm.step(k, theta.data(), timer);
      seen[comm.world_rank()].push_back(
          {comm.calls(), std::move(timer.seen), step.payload_mask, step.frozen});
    }
  });
  return seen;
}

void expect_conformance(Strategy strategy, Shape shape, DType wire = DType::f32,
                        bool pipelined = false) {
  SCOPED_TRACE(std::string(strategy_name(strategy)) + " on " + std::to_string(shape.nodes) + " x " +
               std::to_string(shape.gpus_per_node));
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  const int iterations = 5, t_freeze = 2;  // unfrozen 1-2, freezes after 2, frozen 3-5
  const auto seen = run_consensus(strategy, shape, iterations, t_freeze, layout, wire, pipelined);
  const NodeGrouping grouping{shape.nodes * shape.gpus_per_node, shape.gpus_per_node};
  for (int r = 0; r < grouping.world_size; ++r) {
    ASSERT_EQ(static_cast<int>(seen[r].size()), iterations);
    for (int k = 1; k <= iterations; ++k) {
      SCOPED_TRACE("rank " + std::to_string(r) + (grouping.is_leader(r) ? " (leader)" : "") +
                   ", iteration " + std::to_string(k));
      const Observed& o = seen[r][k - 1];
      auto frozen_after = [&](int i) { return i >= 1 && seen[r][i - 1].frozen; };
      // The freeze happens where the config says: the plan's freeze state is not circular.
      EXPECT_EQ(o.frozen, strategy != Strategy::hsadmm_flat && k >= t_freeze);
      PlanInputs in;
      in.layout = &layout;
      in.run.strategy = strategy;
      in.nodes = shape.nodes;
      in.gpus_per_node = shape.gpus_per_node;
      in.run.hsadmm.bucket_mib = 0.0625;  // 64 KiB
      in.run.hsadmm.wire_dtype = wire;
      in.run.hsadmm.pipeline_buckets = pipelined;
      in.global_mask = strategy != Strategy::hsadmm_flat ? &o.payload_mask : nullptr;
      set_freeze_state(in, frozen_after(k - 2), frozen_after(k - 1), frozen_after(k));
      const IterationPlan plan = build_plan(in);
      EXPECT_TRUE(same_calls(without_barriers(o.calls), plan_calls(plan, grouping, r)));
      // The consensus is the plan after its local steps (local_compute), which the trainer
      // runs.
      std::vector<Phase> want = plan_phases(plan, grouping, r);
      ASSERT_FALSE(want.empty());
      EXPECT_EQ(want.front(), Phase::local_compute);
      want.erase(want.begin());
      EXPECT_TRUE(same_phases(o.phases, want));
    }
  }
}

TEST(ConsensusConformance, HsadmmTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm, {2, 2});
}

TEST(ConsensusConformance, HsadmmThreeNodesOfTwo) {
  expect_conformance(Strategy::hsadmm, {3, 2});
}

TEST(ConsensusConformance, HsadmmOneNodeOfFour) {
  expect_conformance(Strategy::hsadmm, {1, 4});
}

TEST(ConsensusConformance, HsadmmFourNodesOfOne) {
  expect_conformance(Strategy::hsadmm, {4, 1});
}

TEST(ConsensusConformance, HsadmmRailTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_rail, {2, 2});
}

TEST(ConsensusConformance, HsadmmRailThreeNodesOfFour) {
  expect_conformance(Strategy::hsadmm_rail, {3, 4});
}

TEST(ConsensusConformance, HsadmmBf16WireTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm, {2, 2}, DType::bf16);
}

TEST(ConsensusConformance, HsadmmRailFp16WireThreeNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_rail, {3, 2}, DType::f16);
}

TEST(ConsensusConformance, HsadmmPipelinedTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm, {2, 2}, DType::f32, true);
}

TEST(ConsensusConformance, HsadmmRailPipelinedBf16ThreeNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_rail, {3, 2}, DType::bf16, true);
}

TEST(ConsensusConformance, HsadmmFlatTwoNodesOfTwo) {
  expect_conformance(Strategy::hsadmm_flat, {2, 2});
}

TEST(ConsensusConformance, HsadmmFlatThreeNodesOfOne) {
  expect_conformance(Strategy::hsadmm_flat, {3, 1});
}

// Several buckets and a union wider than the keep rate: the comparison is not vacuous.
TEST(ConsensusConformance, PayloadSpansBucketsAndUnionGrowsBeforeFreezing) {
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  const auto seen = run_consensus(Strategy::hsadmm, {2, 2}, 3, 2, layout);
  const auto& first = seen[0][0];
  int inter = 0;
  for (const auto& c : first.calls) inter += c.group == Group::inter && c.dtype == DType::f32;
  EXPECT_GE(inter, 2);
  // After freezing the payload mask is the projection of z: density 0.5 on pruned layers.
  double before = 0, after = 0;
  int pruned = 0;
  for (size_t l = 0; l < first.payload_mask.size(); ++l) {
    if (!first.payload_mask.pruned(l)) continue;
    before += seen[0][0].payload_mask[l].density();
    after += seen[0][2].payload_mask[l].density();
    ++pruned;
  }
  EXPECT_GT(before / pruned, after / pruned);
}

}  // namespace
}  // namespace prunex::test
