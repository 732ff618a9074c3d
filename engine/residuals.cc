#include "engine/residuals.h"

#include <algorithm>
#include <cmath>

#include "engine/error.h"

namespace prunex {

namespace {

double sq_diff(const float* a, const float* b, int64_t n) {
  double s = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(a[k]) - b[k];
    s += d * d;
  }
  return s;
}

double sq_norm(const float* a, int64_t n) {
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += static_cast<double>(a[k]) * a[k];
  return s;
}

struct Level {
  double r, s, eps_pri, eps_dual;
  bool converged;
};

// Boyd et al. 2011 eq. (3.12) for one constraint block.
Level level(double primal_sq, double x_sq, double z_sq, double step_sq, double dual_sq,
            double count, double rho, const HsadmmConfig& cfg) {
  Level l;
  l.r = std::sqrt(primal_sq);
  l.s = rho * std::sqrt(step_sq);
  const double root = std::sqrt(count) * cfg.eps_abs;
  l.eps_pri = root + cfg.eps_rel * std::max(std::sqrt(x_sq), std::sqrt(z_sq));
  l.eps_dual = root + cfg.eps_rel * rho * std::sqrt(dual_sq);
  l.converged = l.r <= l.eps_pri && l.s <= l.eps_dual;
  return l;
}

}  // namespace

ResidualPartials::ResidualPartials(int layers)
    : layers_(layers), sums_(static_cast<std::size_t>(layers) * kFields, 0.0) {
  PRUNEX_CHECK(layers >= 0, "layers ", layers);
}

void ResidualPartials::add_intra(int layer, const float* theta, const float* z_i_new,
                                 const float* z_i_old, const float* u_new, int64_t n) {
  PRUNEX_CHECK(layer >= 0 && layer < layers_, "layer ", layer, " of ", layers_);
  double* f = sums_.data() + static_cast<std::size_t>(layer) * kFields;
  f[intra_primal] += sq_diff(theta, z_i_new, n);
  f[intra_x] += sq_norm(theta, n);
  f[intra_z] += sq_norm(z_i_new, n);
  f[intra_zstep] += sq_diff(z_i_new, z_i_old, n);
  f[intra_dual] += sq_norm(u_new, n);
  f[intra_count] += static_cast<double>(n);
}

void ResidualPartials::add_inter(int layer, const float* z_i_new, const float* z_new,
                                 const float* z_old, const float* v_new, int64_t n) {
  PRUNEX_CHECK(layer >= 0 && layer < layers_, "layer ", layer, " of ", layers_);
  double* f = sums_.data() + static_cast<std::size_t>(layer) * kFields;
  f[inter_primal] += sq_diff(z_i_new, z_new, n);
  f[inter_x] += sq_norm(z_i_new, n);
  f[inter_z] += sq_norm(z_new, n);
  f[inter_dpaper] += sq_diff(z_i_new, z_old, n);
  f[inter_dboyd] += sq_diff(z_new, z_old, n);
  f[inter_dual] += sq_norm(v_new, n);
  f[inter_count] += static_cast<double>(n);
}

void ResidualPartials::add(const ResidualPartials& other) {
  PRUNEX_CHECK_EQ(other.layers_, layers_);
  for (std::size_t k = 0; k < sums_.size(); ++k) sums_[k] += other.sums_[k];
}

void ResidualPartials::clear() {
  std::fill(sums_.begin(), sums_.end(), 0.0);
}

double ResidualPartials::get(int layer, Field f) const {
  PRUNEX_CHECK(layer >= 0 && layer < layers_, "layer ", layer, " of ", layers_);
  return sums_[static_cast<std::size_t>(layer) * kFields + f];
}

ResidualReport evaluate_residuals(const ResidualPartials& summed, const std::vector<double>& rho1,
                                  const std::vector<double>& rho2, const HsadmmConfig& cfg) {
  const int layers = summed.layers();
  PRUNEX_CHECK_EQ(static_cast<int>(rho1.size()), layers);
  PRUNEX_CHECK_EQ(static_cast<int>(rho2.size()), layers);
  using F = ResidualPartials;
  ResidualReport rep;
  rep.layers.resize(layers);
  rep.converged = true;
  for (int l = 0; l < layers; ++l) {
    auto g = [&](F::Field f) { return summed.get(l, f); };
    const Level a = level(g(F::intra_primal), g(F::intra_x), g(F::intra_z), g(F::intra_zstep),
                          g(F::intra_dual), g(F::intra_count), rho1[l], cfg);
    const double inter_step =
        cfg.inter_dual == InterDualResidual::paper ? g(F::inter_dpaper) : g(F::inter_dboyd);
    const Level b = level(g(F::inter_primal), g(F::inter_x), g(F::inter_z), inter_step,
                          g(F::inter_dual), g(F::inter_count), rho2[l], cfg);
    LayerResidualNorms& out = rep.layers[l];
    out.r_intra = a.r;
    out.s_intra = a.s;
    out.eps_pri_intra = a.eps_pri;
    out.eps_dual_intra = a.eps_dual;
    out.converged_intra = a.converged;
    out.r_inter = b.r;
    out.s_inter = b.s;
    out.eps_pri_inter = b.eps_pri;
    out.eps_dual_inter = b.eps_dual;
    out.converged_inter = b.converged;
    rep.converged = rep.converged && out.converged();
  }
  return rep;
}

}  // namespace prunex
