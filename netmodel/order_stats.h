// Order statistics for the synchronisation model (SimConfig::sync_skew): a collective over n
// ranks starts when the last one arrives, so its expected wait is the expected maximum of n
// arrival offsets.
#pragma once

namespace prunex::sim {

// E[max(Z_1, ..., Z_n)] for n independent standard normal Z_i: the integral of
// x n phi(x) Phi(x)^(n-1) over x (Simpson's rule on [-12, 12], step 1e-3). 0 for n <= 1;
// 1 / sqrt(pi) for n = 2; about 1.42 for 8, 3.25 for 1024, 4.44 for 131,072.
double expected_max_std_normal(long n);

}  // namespace prunex::sim
