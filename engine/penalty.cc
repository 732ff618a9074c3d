#include "engine/penalty.h"

#include <algorithm>

#include "engine/error.h"

namespace prunex {

double balance_penalty(double rho, double r, double s, double tau, double mu, double lo,
                       double hi) {
  double next = rho;
  if (r > mu * s)
    next = rho * tau;
  else if (s > mu * r)
    next = rho / tau;
  return std::clamp(next, lo, hi);
}

AdaptivePenalty::AdaptivePenalty(int layers, const HsadmmConfig& cfg)
    : cfg_(cfg), rho1_(std::max(layers, 0), cfg.rho1), rho2_(std::max(layers, 0), cfg.rho2) {
  PRUNEX_CHECK(layers >= 0, "layers ", layers);
  cfg.check();
}

void AdaptivePenalty::restore(std::vector<double> rho1, std::vector<double> rho2) {
  PRUNEX_USAGE(rho1.size() == rho1_.size() && rho2.size() == rho2_.size(),
               "checkpoint holds penalties of ", rho1.size(), " layers, the model has ",
               rho1_.size());
  rho1_ = std::move(rho1);
  rho2_ = std::move(rho2);
}

std::vector<PenaltyChange> AdaptivePenalty::update(const ResidualReport& report) {
  PRUNEX_CHECK_EQ(static_cast<int>(report.layers.size()), layers());
  std::vector<PenaltyChange> changes(rho1_.size());
  if (!cfg_.adaptive_penalty) return changes;
  for (std::size_t l = 0; l < rho1_.size(); ++l) {
    const LayerResidualNorms& n = report.layers[l];
    const double r1 = balance_penalty(rho1_[l], n.r_intra, n.s_intra, cfg_.tau, cfg_.mu,
                                      cfg_.rho_min, cfg_.rho1_max);
    const double r2 = balance_penalty(rho2_[l], n.r_inter, n.s_inter, cfg_.tau, cfg_.mu,
                                      cfg_.rho_min, cfg_.rho2_max);
    changes[l].u_factor = rho1_[l] / r1;
    changes[l].v_factor = rho2_[l] / r2;
    rho1_[l] = r1;
    rho2_[l] = r2;
  }
  return changes;
}

}  // namespace prunex
