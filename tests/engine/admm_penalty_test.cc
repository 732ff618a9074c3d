// Residual balancing (Boyd et al. 2011 eq. (3.13)) per layer, with caps and dual rescaling.
#include <gtest/gtest.h>

#include <vector>

#include "engine/error.h"
#include "engine/hsadmm_updates.h"
#include "engine/penalty.h"

namespace prunex {
namespace {

TEST(AdmmPenalty, BalanceRule) {
  // tau = 2, mu = 10, bounds [0.01, 10].
  EXPECT_DOUBLE_EQ(balance_penalty(1, 11, 1, 2, 10, 0.01, 10), 2);    // r > 10 s
  EXPECT_DOUBLE_EQ(balance_penalty(1, 10, 1, 2, 10, 0.01, 10), 1);    // r == 10 s: keep
  EXPECT_DOUBLE_EQ(balance_penalty(1, 1, 11, 2, 10, 0.01, 10), 0.5);  // s > 10 r
  EXPECT_DOUBLE_EQ(balance_penalty(1, 1, 10, 2, 10, 0.01, 10), 1);
  EXPECT_DOUBLE_EQ(balance_penalty(8, 100, 1, 2, 10, 0.01, 10), 10);        // 16 capped at 10
  EXPECT_DOUBLE_EQ(balance_penalty(0.015, 1, 100, 2, 10, 0.01, 10), 0.01);  // 0.0075 floored
  EXPECT_DOUBLE_EQ(balance_penalty(3, 0, 0, 2, 10, 0.01, 10), 3);           // both zero: keep
}

TEST(AdmmPenalty, PerLayerUpdateAndFactors) {
  HsadmmConfig cfg;  // rho1 = 1.5e-3, rho2 = 1.5e-4, tau 2, mu 10
  AdaptivePenalty pen(2, cfg);
  ResidualReport rep;
  rep.layers.resize(2);
  rep.layers[0].r_intra = 100;  // primal dominates intra: rho1 doubles
  rep.layers[0].s_intra = 1;
  rep.layers[0].r_inter = 1;  // dual dominates inter: rho2 halves
  rep.layers[0].s_inter = 100;
  rep.layers[1].r_intra = rep.layers[1].s_intra = 1;  // balanced: unchanged
  rep.layers[1].r_inter = rep.layers[1].s_inter = 1;
  const std::vector<PenaltyChange> ch = pen.update(rep);
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_DOUBLE_EQ(pen.rho1(0), 3e-3);
  EXPECT_DOUBLE_EQ(pen.rho2(0), 7.5e-5);
  EXPECT_DOUBLE_EQ(ch[0].u_factor, 0.5);
  EXPECT_DOUBLE_EQ(ch[0].v_factor, 2.0);
  EXPECT_DOUBLE_EQ(pen.rho1(1), 1.5e-3);
  EXPECT_DOUBLE_EQ(pen.rho2(1), 1.5e-4);
  EXPECT_DOUBLE_EQ(ch[1].u_factor, 1.0);
  EXPECT_DOUBLE_EQ(ch[1].v_factor, 1.0);

  // The unscaled dual rho*u is unchanged by the rescale: 1.5e-3 * 4 == 3e-3 * 2.
  std::vector<float> u{4, -8};
  rescale_dual(u.data(), ch[0].u_factor, 2);
  EXPECT_FLOAT_EQ(u[0], 2);
  EXPECT_FLOAT_EQ(u[1], -4);
}

TEST(AdmmPenalty, CapFromConfigAndDisabled) {
  HsadmmConfig cfg;
  cfg.rho1 = 6;
  cfg.rho1_max = 10;
  AdaptivePenalty pen(1, cfg);
  ResidualReport rep;
  rep.layers.resize(1);
  rep.layers[0].r_intra = 1;  // r > mu*s with s = 0
  pen.update(rep);
  EXPECT_DOUBLE_EQ(pen.rho1(0), 10);
  const auto ch = pen.update(rep);
  EXPECT_DOUBLE_EQ(pen.rho1(0), 10);
  EXPECT_DOUBLE_EQ(ch[0].u_factor, 1.0);

  cfg.adaptive_penalty = false;
  AdaptivePenalty fixed(1, cfg);
  EXPECT_DOUBLE_EQ(fixed.update(rep)[0].u_factor, 1.0);
  EXPECT_DOUBLE_EQ(fixed.rho1(0), 6);
}

TEST(AdmmPenalty, ConfigValidation) {
  HsadmmConfig ok;
  EXPECT_NO_THROW(ok.check());
  auto bad = [](auto mutate) {
    HsadmmConfig c;
    mutate(c);
    return c;
  };
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.rho1 = 0; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.rho2 = 11; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.tau = 1; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.mu = 0.5; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.eps_abs = -1; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.lambda = -1e-4; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.t_freeze = 0; }).check(), UsageError);
  EXPECT_THROW(bad([](HsadmmConfig& c) { c.freeze_after_stable = -2; }).check(), UsageError);
  EXPECT_THROW(AdaptivePenalty(1, bad([](HsadmmConfig& c) { c.rho1_max = 1e-9; })), UsageError);
}

}  // namespace
}  // namespace prunex
