#include "simulate/failures.h"

#include <algorithm>
#include <cmath>

#include "engine/error.h"

namespace prunex::sim {

double daly_expected_wall_s(double solve_s, double interval_s, double checkpoint_s,
                            double restart_s, double m) {
  return m * std::exp(restart_s / m) * std::expm1((interval_s + checkpoint_s) / m) * solve_s /
         interval_s;
}

double young_interval_s(double checkpoint_s, double m) {
  return std::sqrt(2 * checkpoint_s * m);
}

double daly_interval_s(double checkpoint_s, double m) {
  if (checkpoint_s >= 2 * m) return m;
  const double x = checkpoint_s / (2 * m);
  return std::sqrt(2 * checkpoint_s * m) * (1 + std::sqrt(x) / 3 + x / 9) - checkpoint_s;
}

FailureEstimate estimate_failures(double solve_s, int nodes, double node_mtbf_s, double interval_s,
                                  double checkpoint_s, double restart_s) {
  PRUNEX_USAGE(node_mtbf_s > 0 && nodes >= 1, "the node MTBF must be > 0");
  PRUNEX_USAGE(checkpoint_s > 0 && restart_s > 0,
               "the checkpoint and restart times must be > 0 with failures");
  PRUNEX_USAGE(interval_s >= 0 && solve_s >= 0, "the checkpoint interval must be >= 0");
  FailureEstimate e;
  e.solve_s = solve_s;
  e.system_mtbf_s = node_mtbf_s / nodes;
  e.young_interval_s = young_interval_s(checkpoint_s, e.system_mtbf_s);
  e.daly_interval_s = daly_interval_s(checkpoint_s, e.system_mtbf_s);
  e.interval_s = interval_s > 0 ? interval_s : e.daly_interval_s;
  // A run shorter than the interval is one segment: it writes no checkpoint before its end.
  if (solve_s > 0) e.interval_s = std::min(e.interval_s, solve_s);
  e.expected_s =
      daly_expected_wall_s(solve_s, e.interval_s, checkpoint_s, restart_s, e.system_mtbf_s);
  e.expected_at_daly_s = daly_expected_wall_s(
      solve_s, solve_s > 0 ? std::min(e.daly_interval_s, solve_s) : e.daly_interval_s, checkpoint_s,
      restart_s, e.system_mtbf_s);
  e.failures = e.expected_s / e.system_mtbf_s;
  return e;
}

}  // namespace prunex::sim
