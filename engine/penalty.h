// Layer-wise adaptive penalties by residual balancing (Boyd et al. 2011 Section 3.4.1,
// eq. (3.13); paper Section 3.4 applies it per layer to rho1 and rho2 independently).
#pragma once

#include <vector>

#include "engine/hsadmm_config.h"
#include "engine/residuals.h"

namespace prunex {

// One step of residual balancing: rho*tau if r > mu*s, rho/tau if s > mu*r, else rho;
// the result clamped to [lo, hi].
double balance_penalty(double rho, double r, double s, double tau, double mu, double lo, double hi);

// Multiply the scaled duals by these after an update: u by u_factor (= old rho1 / new rho1),
// v by v_factor (= old rho2 / new rho2), so that rho*u (the unscaled dual) is unchanged.
struct PenaltyChange {
  double u_factor = 1.0;
  double v_factor = 1.0;
};

class AdaptivePenalty {
 public:
  // All layers start at cfg.rho1 / cfg.rho2; cfg is validated.
  AdaptivePenalty(int layers, const HsadmmConfig& cfg);

  int layers() const { return static_cast<int>(rho1_.size()); }
  double rho1(int layer) const { return rho1_.at(layer); }
  double rho2(int layer) const { return rho2_.at(layer); }
  const std::vector<double>& rho1() const { return rho1_; }
  const std::vector<double>& rho2() const { return rho2_; }

  // Balances rho1 on (r_intra, s_intra) and rho2 on (r_inter, s_inter) per layer. Returns
  // one PenaltyChange per layer (all 1 when cfg.adaptive_penalty is false).
  std::vector<PenaltyChange> update(const ResidualReport& report);
  // Checkpoints: restores penalties saved from rho1() and rho2() (one value per layer each).
  void restore(std::vector<double> rho1, std::vector<double> rho2);

 private:
  HsadmmConfig cfg_;
  std::vector<double> rho1_, rho2_;
};

}  // namespace prunex
