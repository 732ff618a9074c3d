// Hand-computed checks of the per-element H-SADMM updates (eqs. (8)-(13)).
#include <gtest/gtest.h>

#include <vector>

#include "engine/hsadmm_updates.h"

namespace prunex {
namespace {

using Vec = std::vector<float>;

TEST(HsadmmUpdates, ProximalGradientEq8) {
  // theta - z_i + u = [3-1+0.5, 1-2-0.5] = [2.5, -1.5]; rho1 = 0.5 -> [1.25, -0.75];
  // grad [1, -2] + that = [2.25, -2.75].
  Vec grad{1, -2}, theta{3, 1}, z{1, 2}, u{0.5f, -0.5f};
  add_proximal_gradient(grad.data(), theta.data(), z.data(), u.data(), 0.5, 2);
  EXPECT_FLOAT_EQ(grad[0], 2.25f);
  EXPECT_FLOAT_EQ(grad[1], -2.75f);
  // (rho1/2)||[2.5, -1.5]||^2 = 0.25 * (6.25 + 2.25) = 2.125.
  EXPECT_DOUBLE_EQ(proximal_penalty(theta.data(), z.data(), u.data(), 0.5, 2), 2.125);
}

TEST(HsadmmUpdates, ThetaPlusUMayAlias) {
  Vec theta{1, 2}, u{0, 1};
  theta_plus_u(theta.data(), u.data(), theta.data(), 2);
  EXPECT_EQ(theta, (Vec{1, 3}));
}

// M = 2 nodes, P = 2 ranks, node 0 seen from its ranks:
//   rank 0: theta = [1, 2], u = [0, 1];  rank 1: theta = [3, 0], u = [1, -1]
//   sum_j (theta + u) = [5, 2]; global z = [2, 4]; v_0 = [1, 1] -> z - v = [1, 3]
//   rho1 = 1, rho2 = 0.5, lambda = 1: gamma = 1/2 + 2*1 + 0.5 = 3
//   z~ = (1*[5, 2] + 0.5*[1, 3]) / 3 = [5.5, 3.5] / 3 = [11/6, 7/6].
TEST(HsadmmUpdates, NodeCandidateEq9HandCase) {
  CandidateParams p;
  p.rho1 = 1;
  p.rho2 = 0.5;
  p.lambda = 1;
  p.nodes = 2;
  p.ranks_per_node = 2;
  EXPECT_DOUBLE_EQ(candidate_gamma(p), 3.0);

  Vec t0{1, 2}, u0{0, 1}, t1{3, 0}, u1{1, -1};
  Vec b0(2), b1(2), sum(2);
  theta_plus_u(t0.data(), u0.data(), b0.data(), 2);
  theta_plus_u(t1.data(), u1.data(), b1.data(), 2);
  for (int k = 0; k < 2; ++k) sum[k] = b0[k] + b1[k];  // the intra-node all-reduce
  EXPECT_EQ(sum, (Vec{5, 2}));

  Vec z{2, 4}, v{1, 1}, out(2);
  node_candidate(sum.data(), z.data(), v.data(), p, out.data(), 2);
  EXPECT_FLOAT_EQ(out[0], 11.0f / 6);
  EXPECT_FLOAT_EQ(out[1], 7.0f / 6);

  // Independent check: z~ zeroes the gradient of eq. (6) in z_i,
  //   (lambda/M) z_i - rho1 * sum_j (theta_j + u_j - z_i) + rho2 (z_i - z + v_i) = 0.
  for (int k = 0; k < 2; ++k) {
    const double zi = out[k];
    const double g = p.lambda / p.nodes * zi -
                     p.rho1 * ((t0[k] + u0[k] - zi) + (t1[k] + u1[k] - zi)) +
                     p.rho2 * (zi - z[k] + v[k]);
    EXPECT_NEAR(g, 0.0, 1e-6) << "element " << k;
  }
}

TEST(HsadmmUpdates, MaskAndGlobalZEq11) {
  Vec z{1.5f, -2, 3};
  const std::vector<uint8_t> m{1, 0, 1};
  apply_mask(z.data(), m.data(), 3);
  EXPECT_EQ(z, (Vec{1.5f, 0, 3}));

  // Two leaders: z_0 + v_0 = [1, 2] + [0.5, -1] = [1.5, 1]; z_1 + v_1 = [3, 0] + [-0.5, 2]
  // = [2.5, 2]; sum = [4, 3]; z = sum / 2 = [2, 1.5].
  Vec z0{1, 2}, v0{0.5f, -1}, z1{3, 0}, v1{-0.5f, 2}, c0(2), c1(2);
  z_plus_v(z0.data(), v0.data(), c0.data(), 2);
  z_plus_v(z1.data(), v1.data(), c1.data(), 2);
  Vec sum{c0[0] + c1[0], c0[1] + c1[1]};
  global_z_from_sum(sum.data(), 2, 2);
  EXPECT_EQ(sum, (Vec{2, 1.5f}));
}

TEST(HsadmmUpdates, DualsEq12Eq13AndRescale) {
  // u + (theta - z_i) = [0.5 + 2, -0.5 - 1] = [2.5, -1.5].
  Vec u{0.5f, -0.5f}, theta{3, 1}, zi{1, 2};
  update_u(u.data(), theta.data(), zi.data(), 2);
  EXPECT_EQ(u, (Vec{2.5f, -1.5f}));
  // v + (z_i - z) = [1 + 0.5, 1 - 0.5] = [1.5, 0.5].
  Vec v{1, 1}, z_i{2, 0}, z{1.5f, 0.5f};
  update_v(v.data(), z_i.data(), z.data(), 2);
  EXPECT_EQ(v, (Vec{1.5f, 0.5f}));
  // rho 1 -> 2: factor 1/2 keeps rho * u = [2.5, -1.5].
  rescale_dual(u.data(), 0.5, 2);
  EXPECT_EQ(u, (Vec{1.25f, -0.75f}));
}

// Eq. 9's gamma: at the consensus optimum x* (lambda = 0) the iteration must stand still.
// There theta_j = z_i = z = x*, v_i = 0 and, from the theta step's optimality
// (1 + rho1) x = a_j + rho1 (x - u_j), u_j = (a_j - x) / rho1. With a node whose a_j average
// to x, the node sum of theta + u is P x, so z~_i = (rho1 P x + rho2 x) / gamma: x with the
// derived gamma = P rho1 + rho2, and (P rho1 + rho2) / (rho1 + rho2) x with the printed one
// (gamma = rho1 + rho2), here (2 + 1) / (1 + 1) = 1.5 x at P = 2, rho1 = rho2 = 1.
TEST(HsadmmUpdates, PaperPrintedGammaMovesTheOptimum) {
  const float x = 0.8f, rho1 = 1, rho2 = 1;
  const Vec a{0.3f, 1.3f};  // one node of P = 2 ranks, mean x
  float sum = 0;
  for (float aj : a) sum += x + (aj - x) / rho1;  // theta_j + u_j
  const Vec z{x}, v{0};
  Vec out(1);
  node_candidate(&sum, z.data(), v.data(), CandidateParams{rho1, rho2, 0, 2, 2}, out.data(), 1);
  EXPECT_FLOAT_EQ(out[0], x);
  node_candidate(&sum, z.data(), v.data(), CandidateParams{rho1, rho2, 0, 2, 1}, out.data(), 1);
  EXPECT_FLOAT_EQ(out[0], 1.5f * x);
}

}  // namespace
}  // namespace prunex
