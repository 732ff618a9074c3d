// hsadmm-rail against hsadmm on the same problem, ranks as threads (backends/inproc): the same
// global z and masks after every iteration (the inter-node sums are the same sums, only split
// over the rails; within 1e-6 relative, bit-identical on 2 nodes where a sum of two floats has
// one order), and each rank's inter-node bytes 1/P of a leader's (up to the padding that
// splits a bucket into P equal slices).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/inproc/inproc_communicator.h"
#include "engine/hsadmm_consensus.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

struct RunTrace {
  std::vector<std::vector<std::vector<float>>> z;  // [rank][iteration] global z
  std::vector<std::vector<ModelMask>> mask;        // [rank][iteration] global mask
  std::vector<double> inter_bytes;                 // per rank, all iterations
};

RunTrace run(Strategy strategy, int nodes, int gpus_per_node, int iterations,
             bool pipelined = false, DType wire = DType::f32) {
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5));
  HsadmmConfig cfg;
  cfg.t_freeze = 3;
  const NodeGrouping g{nodes * gpus_per_node, gpus_per_node};
  RunTrace out;
  out.z.resize(g.world_size);
  out.mask.resize(g.world_size);
  out.inter_bytes.assign(g.world_size, 0);
  spawn_ranks(g, [&](Communicator& comm) {
    const int r = comm.world_rank();
    const int64_t n = layout.parameters();
    std::vector<float> theta(n, 0.f);
    HsadmmConsensus admm(layout, spec, cfg, int64_t(64) << 10, strategy, comm, theta.data(), wire);
    admm.set_pipelined(pipelined);
    NullPhaseTimer timer;
    for (int k = 1; k <= iterations; ++k) {
      // A theta step that depends on the rank, the iteration and the consensus state.
      for (int64_t i = 0; i < n; ++i)
        theta[i] = 0.5f * admm.z_i()[i] - 0.25f * admm.u()[i] +
                   0.1f * static_cast<float>(std::sin(0.001 * i + 0.7 * r + 0.3 * k));
      comm.clear_calls();
      admm.step(k, theta.data(), timer);
      for (const auto& c : comm.calls())
        if ((c.group == Group::inter || c.group == Group::rail) && c.dtype == wire)
          out.inter_bytes[r] += c.bytes;  // the compact sums (not the leaders' mask bits)
      out.z[r].emplace_back(admm.z(), admm.z() + n);
      out.mask[r].push_back(admm.global_mask());
    }
  });
  return out;
}

void expect_same_consensus(int nodes, int gpus_per_node) {
  SCOPED_TRACE(std::to_string(nodes) + " x " + std::to_string(gpus_per_node));
  const int K = 5;
  const RunTrace lead = run(Strategy::hsadmm, nodes, gpus_per_node, K);
  const RunTrace rail = run(Strategy::hsadmm_rail, nodes, gpus_per_node, K);
  const int W = nodes * gpus_per_node;
  double worst = 0;
  for (int r = 0; r < W; ++r)
    for (int k = 0; k < K; ++k) {
      ASSERT_TRUE(lead.mask[r][k] == rail.mask[r][k]) << "rank " << r << " iteration " << k + 1;
      const auto& a = lead.z[r][k];
      const auto& b = rail.z[r][k];
      for (size_t i = 0; i < a.size(); ++i) {
        const double d =
            std::fabs(double(a[i]) - double(b[i])) / std::max(1.0, std::fabs(double(a[i])));
        worst = std::max(worst, d);
      }
    }
  EXPECT_LE(worst, 1e-6);
  if (nodes == 2) {
    EXPECT_EQ(worst, 0.0);  // a + b == b + a
  }
  // Inter-node sums: every rank carries a leader's payload / P, plus under 4 bytes per bucket
  // and iteration where a bucket does not split into P equal slices.
  const double leader = lead.inter_bytes[0];
  EXPECT_GT(leader, 0);
  for (int r = 0; r < W; ++r) {
    const double mine = rail.inter_bytes[r];
    EXPECT_GE(mine, leader / gpus_per_node) << "rank " << r;
    EXPECT_LT(mine, leader / gpus_per_node + 4.0 * 16 * K) << "rank " << r;
  }
}

TEST(HsadmmRail, SameZAsLeadersTwoNodesOfTwo) {
  expect_same_consensus(2, 2);
}
TEST(HsadmmRail, SameZAsLeadersTwoNodesOfFour) {
  expect_same_consensus(2, 4);
}
TEST(HsadmmRail, SameZAsLeadersThreeNodesOfTwo) {
  expect_same_consensus(3, 2);
}

// Pipelined buckets change when each bucket travels, not what is summed: the same z and
// masks bit for bit, for the leader and the rail design, in fp32 and bf16 (small_cnn's
// compact payload spans several 64 KiB buckets), and the same bytes.
TEST(PipelinedBuckets, SameZAsWholeExchange) {
  for (Strategy s : {Strategy::hsadmm, Strategy::hsadmm_rail})
    for (DType w : {DType::f32, DType::bf16}) {
      SCOPED_TRACE(std::string(strategy_name(s)) + " " + std::string(dtype_name(w)));
      const RunTrace whole = run(s, 3, 2, 4, false, w);
      const RunTrace piped = run(s, 3, 2, 4, true, w);
      for (int r = 0; r < 6; ++r) {
        EXPECT_EQ(whole.inter_bytes[r], piped.inter_bytes[r]);
        for (int k = 0; k < 4; ++k) {
          ASSERT_TRUE(whole.mask[r][k] == piped.mask[r][k]);
          ASSERT_EQ(whole.z[r][k], piped.z[r][k]) << "rank " << r << " iteration " << k + 1;
        }
      }
    }
}

}  // namespace
}  // namespace prunex
