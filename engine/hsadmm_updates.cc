#include "engine/hsadmm_updates.h"

#include "engine/error.h"

namespace prunex {

// Arithmetic is done in double and rounded once to float, so results match a hand
// computation to float rounding regardless of the compiler's contraction choices.

void add_proximal_gradient(float* grad, const float* theta, const float* z_i, const float* u,
                           double rho1, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(theta[k]) - z_i[k] + u[k];
    grad[k] = static_cast<float>(grad[k] + rho1 * d);
  }
}

double proximal_penalty(const float* theta, const float* z_i, const float* u, double rho1,
                        int64_t n) {
  double sq = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(theta[k]) - z_i[k] + u[k];
    sq += d * d;
  }
  return 0.5 * rho1 * sq;
}

void theta_plus_u(const float* theta, const float* u, float* buf, int64_t n) {
  for (int64_t k = 0; k < n; ++k) buf[k] = theta[k] + u[k];
}

double candidate_gamma(const CandidateParams& p) {
  PRUNEX_CHECK(p.nodes >= 1 && p.ranks_per_node >= 1, "nodes ", p.nodes, " ranks_per_node ",
               p.ranks_per_node);
  return p.lambda / p.nodes + p.ranks_per_node * p.rho1 + p.rho2;
}

void node_candidate(const float* sum_theta_plus_u, const float* z, const float* v_i,
                    const CandidateParams& p, float* out, int64_t n) {
  const double gamma = candidate_gamma(p);
  PRUNEX_CHECK(gamma > 0, "gamma ", gamma);
  const double a = p.rho1 / gamma, b = p.rho2 / gamma;
  for (int64_t k = 0; k < n; ++k) {
    const double c = a * sum_theta_plus_u[k] + b * (static_cast<double>(z[k]) - v_i[k]);
    out[k] = static_cast<float>(c);
  }
}

void apply_mask(float* z, const uint8_t* mask, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    if (!mask[k]) z[k] = 0.0f;
}

void z_plus_v(const float* z_i, const float* v_i, float* buf, int64_t n) {
  for (int64_t k = 0; k < n; ++k) buf[k] = z_i[k] + v_i[k];
}

void global_z_from_sum(float* sum_z_plus_v, int nodes, int64_t n) {
  PRUNEX_CHECK(nodes >= 1, "nodes ", nodes);
  const double inv = 1.0 / nodes;
  for (int64_t k = 0; k < n; ++k) sum_z_plus_v[k] = static_cast<float>(sum_z_plus_v[k] * inv);
}

void update_u(float* u, const float* theta, const float* z_i, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    u[k] = static_cast<float>(u[k] + (static_cast<double>(theta[k]) - z_i[k]));
}

void update_v(float* v, const float* z_i, const float* z, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    v[k] = static_cast<float>(v[k] + (static_cast<double>(z_i[k]) - z[k]));
}

void rescale_dual(float* dual, double factor, int64_t n) {
  if (factor == 1.0) return;
  for (int64_t k = 0; k < n; ++k) dual[k] = static_cast<float>(dual[k] * factor);
}

}  // namespace prunex
