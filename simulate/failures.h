// Expected time to train when nodes fail: checkpoint / restart under independent exponential
// failures (Daly, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", Future Generation Computer Systems 22 (2006) 303-312). No SimGrid here: the
// failure-free time comes from the simulated run.
//
//   M  = system MTBF = node MTBF / nodes (any node's failure stops a synchronous job)
//   Ts = failure-free time to train, tau = compute time between checkpoints,
//   delta = time to write a checkpoint, R = time to restart from one:
//   expected wall time  Tw = M e^(R/M) (e^((tau + delta)/M) - 1) Ts / tau
//   (each of the Ts/tau segments of tau + delta must run without a failure; a failure loses
//   the segment's progress and costs R, itself retried when a failure hits it)
//   Young's interval      tau_Y = sqrt(2 delta M)
//   Daly's interval       tau_D = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M)
//                                  + (1/9) (delta / 2M)] - delta    (delta < 2M; else M)
#pragma once

namespace prunex::sim {

double daly_expected_wall_s(double solve_s, double interval_s, double checkpoint_s,
                            double restart_s, double system_mtbf_s);
double young_interval_s(double checkpoint_s, double system_mtbf_s);
double daly_interval_s(double checkpoint_s, double system_mtbf_s);

struct FailureEstimate {
  double solve_s = 0;        // failure-free time to train (the simulated run)
  double system_mtbf_s = 0;  // node MTBF / nodes
  double interval_s = 0;     // the interval used (given, else Daly's)
  double young_interval_s = 0;
  double daly_interval_s = 0;
  double expected_s = 0;          // expected wall time at interval_s
  double expected_at_daly_s = 0;  // at Daly's interval
  double failures = 0;            // expected failures during expected_s (expected_s / M)
};

// interval_s 0: Daly's optimum. UsageError for a non-positive MTBF, checkpoint or restart time.
FailureEstimate estimate_failures(double solve_s, int nodes, double node_mtbf_s, double interval_s,
                                  double checkpoint_s, double restart_s);

}  // namespace prunex::sim
