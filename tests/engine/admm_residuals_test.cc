// Residuals and the Boyd stopping test on a hand-computed M = 2, P = 2, n = 2 case.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/residuals.h"

namespace prunex {
namespace {

using Vec = std::vector<float>;

// Node 0: z0 k -> k+1: [0,0] -> [1,0]; rank (0,0) theta [1,2] u [0,1]; rank (0,1) theta [1,-2]
//   u [0,0]; v0 = [-1,0].
// Node 1: z1: [0,0] -> [3,0]; rank (1,0) theta [3,0] u [1,1]; rank (1,1) theta [3,4] u [0,0];
//   v1 = [1,0].  Global z: [0,0] -> [2,0].
// Sums by hand:
//   intra_primal = |[0,2]|^2 + |[0,-2]|^2 + 0 + |[0,4]|^2 = 4 + 4 + 0 + 16 = 24
//   intra_x = 5 + 5 + 9 + 25 = 44;  intra_z = 1 + 1 + 9 + 9 = 20;  intra_zstep = 20
//   intra_dual = 1 + 0 + 2 + 0 = 3;  intra_count = 8
//   inter_primal = |[-1,0]|^2 + |[1,0]|^2 = 2; inter_x = 1 + 9 = 10; inter_z = 4 + 4 = 8
//   inter_dpaper = |[1,0]|^2 + |[3,0]|^2 = 10; inter_dboyd = 4 + 4 = 8; inter_dual = 2; count 4
struct Case {
  ResidualPartials summed{1};
  Case() {
    const Vec z0o{0, 0}, z0{1, 0}, z1o{0, 0}, z1{3, 0}, zo{0, 0}, z{2, 0};
    const Vec t00{1, 2}, u00{0, 1}, t01{1, -2}, u01{0, 0};
    const Vec t10{3, 0}, u10{1, 1}, t11{3, 4}, u11{0, 0};
    const Vec v0{-1, 0}, v1{1, 0};
    // One partials object per rank, then the elementwise sum (the world all-reduce).
    std::vector<ResidualPartials> ranks(4, ResidualPartials(1));
    ranks[0].add_intra(0, t00.data(), z0.data(), z0o.data(), u00.data(), 2);
    ranks[1].add_intra(0, t01.data(), z0.data(), z0o.data(), u01.data(), 2);
    ranks[2].add_intra(0, t10.data(), z1.data(), z1o.data(), u10.data(), 2);
    ranks[3].add_intra(0, t11.data(), z1.data(), z1o.data(), u11.data(), 2);
    ranks[0].add_inter(0, z0.data(), z.data(), zo.data(), v0.data(), 2);  // leader of node 0
    ranks[2].add_inter(0, z1.data(), z.data(), zo.data(), v1.data(), 2);  // leader of node 1
    for (const auto& r : ranks) summed.add(r);
  }
};

TEST(AdmmResiduals, PartialSumsByHand) {
  Case c;
  using F = ResidualPartials;
  const double want[F::kFields] = {24, 44, 20, 20, 3, 8, 2, 10, 8, 10, 8, 2, 4};
  ASSERT_EQ(c.summed.size(), static_cast<std::size_t>(F::kFields));
  for (int f = 0; f < F::kFields; ++f) EXPECT_DOUBLE_EQ(c.summed.data()[f], want[f]) << f;
}

TEST(AdmmResiduals, NormsAndTolerancesBoyd312) {
  Case c;
  HsadmmConfig cfg;
  cfg.eps_abs = 0.1;
  cfg.eps_rel = 0.1;
  const ResidualReport rep = evaluate_residuals(c.summed, {0.5}, {0.25}, cfg);
  const LayerResidualNorms& n = rep.layers.at(0);
  EXPECT_NEAR(n.r_intra, std::sqrt(24.0), 1e-12);
  EXPECT_NEAR(n.s_intra, 0.5 * std::sqrt(20.0), 1e-12);
  // sqrt(8)*0.1 + 0.1*max(sqrt(44), sqrt(20)) = 0.2828427 + 0.6633250
  EXPECT_NEAR(n.eps_pri_intra, 0.9461677, 1e-6);
  // sqrt(8)*0.1 + 0.1*0.5*sqrt(3) = 0.2828427 + 0.0866025
  EXPECT_NEAR(n.eps_dual_intra, 0.3694452, 1e-6);
  EXPECT_NEAR(n.r_inter, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(n.s_inter, 0.25 * std::sqrt(10.0), 1e-12);  // paper form
  // sqrt(4)*0.1 + 0.1*max(sqrt(10), sqrt(8)) = 0.2 + 0.3162278
  EXPECT_NEAR(n.eps_pri_inter, 0.5162278, 1e-6);
  // 0.2 + 0.1*0.25*sqrt(2)
  EXPECT_NEAR(n.eps_dual_inter, 0.2353553, 1e-6);
  EXPECT_FALSE(n.converged_intra);
  EXPECT_FALSE(n.converged_inter);
  EXPECT_FALSE(rep.converged);

  cfg.inter_dual = InterDualResidual::boyd;
  EXPECT_NEAR(evaluate_residuals(c.summed, {0.5}, {0.25}, cfg).layers[0].s_inter,
              0.25 * std::sqrt(8.0), 1e-12);
}

TEST(AdmmResiduals, StoppingDecisionAtTheBoundary) {
  Case c;
  HsadmmConfig cfg;
  cfg.eps_rel = 0;
  // intra: eps = sqrt(8)*eps_abs vs r = sqrt(24) = 4.89898 and s = 2.23607;
  // inter: eps = 2*eps_abs vs r = 1.41421 and s = 0.79057.
  cfg.eps_abs = 1.70;  // intra eps 4.80833 < r: not converged; inter eps 3.4: converged
  ResidualReport rep = evaluate_residuals(c.summed, {0.5}, {0.25}, cfg);
  EXPECT_FALSE(rep.layers[0].converged_intra);
  EXPECT_TRUE(rep.layers[0].converged_inter);
  EXPECT_FALSE(rep.converged);
  cfg.eps_abs = 1.74;  // intra eps 4.92146 > r
  rep = evaluate_residuals(c.summed, {0.5}, {0.25}, cfg);
  EXPECT_TRUE(rep.layers[0].converged_intra);
  EXPECT_TRUE(rep.converged);
  cfg.eps_abs = 0.71;  // inter eps 1.42 > r = 1.41421 but 0.71*sqrt(8) < r_intra
  rep = evaluate_residuals(c.summed, {0.5}, {0.25}, cfg);
  EXPECT_TRUE(rep.layers[0].converged_inter);
  cfg.eps_abs = 0.70;  // inter eps 1.40 < r
  rep = evaluate_residuals(c.summed, {0.5}, {0.25}, cfg);
  EXPECT_FALSE(rep.layers[0].converged_inter);
}

TEST(AdmmResiduals, EmptyLevelCountsAsConvergedAndLayersAreIndependent) {
  // Two layers; only layer 1 gets data (a single node, so no inter level anywhere).
  ResidualPartials p(2);
  const Vec t{1, 1}, zi{1, 1}, u{0, 0};
  p.add_intra(1, t.data(), zi.data(), zi.data(), u.data(), 2);
  HsadmmConfig cfg;
  const ResidualReport rep = evaluate_residuals(p, {1, 1}, {1, 1}, cfg);
  EXPECT_TRUE(rep.layers[0].converged());
  EXPECT_TRUE(rep.layers[1].converged());  // theta == z_i, no step: r = s = 0
  EXPECT_EQ(p.get(1, ResidualPartials::intra_x), 2.0);
  EXPECT_EQ(p.get(0, ResidualPartials::intra_x), 0.0);
  p.clear();
  EXPECT_EQ(p.get(1, ResidualPartials::intra_x), 0.0);
}

}  // namespace
}  // namespace prunex
