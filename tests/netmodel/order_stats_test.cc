// expected_max_std_normal against closed forms (n = 2, 3: 1 / sqrt(pi) and 3 / (2 sqrt(pi)))
// and against brute force (the mean of the largest of n seeded normal draws, 20,000 times).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "netmodel/order_stats.h"

namespace prunex::sim {
namespace {

TEST(ExpectedMaxNormal, ClosedFormsForTwoAndThree) {
  EXPECT_EQ(expected_max_std_normal(1), 0.0);
  EXPECT_EQ(expected_max_std_normal(0), 0.0);
  EXPECT_NEAR(expected_max_std_normal(2), 1 / std::sqrt(M_PI), 1e-9);
  EXPECT_NEAR(expected_max_std_normal(3), 3 / (2 * std::sqrt(M_PI)), 1e-9);
}

TEST(ExpectedMaxNormal, EqualsTheMeanOfSampledMaxima) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (long n : {4L, 8L, 16L, 100L, 1000L}) {
    constexpr int trials = 20000;
    double sum = 0, sum_sq = 0;
    for (int t = 0; t < trials; ++t) {
      double m = -1e300;
      for (long i = 0; i < n; ++i) m = std::max(m, z(rng));
      sum += m;
      sum_sq += m * m;
    }
    const double mean = sum / trials;
    const double se = std::sqrt((sum_sq / trials - mean * mean) / trials);
    EXPECT_NEAR(expected_max_std_normal(n), mean, 4 * se) << "n = " << n;
  }
}

TEST(ExpectedMaxNormal, GrowsLikeTheTailQuantileAtScale) {
  // For large n the maximum sits near Phi^-1(1 - 1/n) (about 4.26 for 131,072: 1 - Phi(4.26)
  // = 1.0e-5 = 1.3 / 131,072) and grows with n; the integral stays finite and ordered.
  double prev = 0;
  for (long n : {2L, 8L, 64L, 1024L, 16384L, 131072L}) {
    const double e = expected_max_std_normal(n);
    EXPECT_GT(e, prev) << n;
    prev = e;
  }
  EXPECT_GT(expected_max_std_normal(131072), 4.0);
  EXPECT_LT(expected_max_std_normal(131072), 4.6);
}

}  // namespace
}  // namespace prunex::sim
