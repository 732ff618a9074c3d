// Hyperparameters of H-SADMM (paper Sections 3 and 5.1.5). Defaults are the paper's where it
// states them; the others are marked "our choice" with the reason.
#pragma once

namespace prunex {

// Which vector the inter-node dual residual s_inter measures (see residuals.h).
enum class InterDualResidual {
  paper,  // rho2 * (z_i^{k+1} - z^k), as written after eq. (13) of the paper
  boyd,   // rho2 * (z^{k+1} - z^k), Boyd et al. 2011 eq. (3.10) with x = z_i, z = z
};

struct HsadmmConfig {
  // Initial penalties and their caps: paper Section 5.1.5 (rho1 = 1.5e-3, rho2 = 1.5e-4,
  // rho1_max = rho2_max = 10).
  double rho1 = 1.5e-3;
  double rho2 = 1.5e-4;
  double rho1_max = 10.0;
  double rho2_max = 10.0;
  // Lower clamp for both penalties. Our choice: the paper states none; a floor keeps rho > 0
  // when residual balancing keeps dividing.
  double rho_min = 1e-8;
  // Weight decay lambda of eq. (5) (paper Section 5.1.5: 1e-4).
  double lambda = 1e-4;
  // Stopping tolerances, Boyd et al. 2011 Section 3.3.1. Our choice: eps_rel = 1e-3 is
  // Boyd's suggested value; eps_abs = 1e-4 because weights are O(1e-2..1) per element, so
  // sqrt(p) * 1e-4 stays well below ||theta|| for any real layer.
  double eps_abs = 1e-4;
  double eps_rel = 1e-3;
  // Residual balancing, Boyd et al. 2011 Section 3.4.1, eq. (3.13): tau = 2, mu = 10.
  double tau = 2.0;
  double mu = 10.0;
  bool adaptive_penalty = true;
  // Mask freezing (paper Section 4.5, Algorithm 1 line 10): masks are frozen for iterations
  // k > t_freeze (t_freeze < 0: never by iteration count), or once the global mask has stayed
  // unchanged for freeze_after_stable consecutive iterations (0: never by stability). The
  // paper gives no value for either; both are off by default.
  int t_freeze = -1;
  int freeze_after_stable = 0;
  InterDualResidual inter_dual = InterDualResidual::paper;

  // Throws UsageError naming the first bad value (non-positive rho, rho above its cap,
  // tau <= 1, mu <= 1, negative tolerances or lambda, t_freeze == 0, freeze_after_stable < 0).
  void check() const;
};

}  // namespace prunex
