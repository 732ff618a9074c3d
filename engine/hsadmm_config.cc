#include "engine/hsadmm_config.h"

#include "engine/error.h"

namespace prunex {

void HsadmmConfig::check() const {
  PRUNEX_USAGE(rho1 > 0 && rho2 > 0, "H-SADMM: rho1 and rho2 must be > 0 (got ", rho1, ", ", rho2,
               ")");
  PRUNEX_USAGE(rho_min > 0, "H-SADMM: rho_min must be > 0 (got ", rho_min, ")");
  PRUNEX_USAGE(rho1_max >= rho_min && rho2_max >= rho_min,
               "H-SADMM: penalty caps must be >= rho_min (got rho1_max ", rho1_max, ", rho2_max ",
               rho2_max, ", rho_min ", rho_min, ")");
  PRUNEX_USAGE(rho1 >= rho_min && rho1 <= rho1_max, "H-SADMM: rho1 ", rho1, " outside [", rho_min,
               ", ", rho1_max, "]");
  PRUNEX_USAGE(rho2 >= rho_min && rho2 <= rho2_max, "H-SADMM: rho2 ", rho2, " outside [", rho_min,
               ", ", rho2_max, "]");
  PRUNEX_USAGE(lambda >= 0, "H-SADMM: lambda (weight decay) must be >= 0 (got ", lambda, ")");
  PRUNEX_USAGE(eps_abs >= 0 && eps_rel >= 0, "H-SADMM: tolerances must be >= 0 (got eps_abs ",
               eps_abs, ", eps_rel ", eps_rel, ")");
  PRUNEX_USAGE(tau > 1, "H-SADMM: tau must be > 1 (got ", tau, ")");
  PRUNEX_USAGE(mu > 1, "H-SADMM: mu must be > 1 (got ", mu, ")");
  PRUNEX_USAGE(t_freeze != 0, "H-SADMM: t_freeze must be >= 1, or negative for never (got 0)");
  PRUNEX_USAGE(freeze_after_stable >= 0, "H-SADMM: freeze_after_stable must be >= 0 (got ",
               freeze_after_stable, ")");
}

}  // namespace prunex
