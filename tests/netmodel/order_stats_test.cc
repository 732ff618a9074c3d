// expected_max_std_normal against closed forms (n = 2, 3: 1 / sqrt(pi) and 3 / (2 sqrt(pi)))
// and against brute force (the mean of the largest of n seeded normal draws).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "netmodel/order_stats.h"

namespace prunex::sim {
namespace {

// The mean of `trials` maxima of n draws of z, and its standard error.
struct Sampled {
  double mean, se;
};
Sampled sampled_maxima(long n, int trials, std::mt19937_64& rng,
                       std::normal_distribution<double>& z) {
  double sum = 0, sum_sq = 0;
  for (int t = 0; t < trials; ++t) {
    double m = -1e300;
    for (long i = 0; i < n; ++i) m = std::max(m, z(rng));
    sum += m;
    sum_sq += m * m;
  }
  const double mean = sum / trials;
  return {mean, std::sqrt((sum_sq / trials - mean * mean) / trials)};
}

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
    const auto [mean, se] = sampled_maxima(n, 20000, rng, z);
    EXPECT_NEAR(expected_max_std_normal(n), mean, 4 * se) << "n = " << n;
  }
}

TEST(ExpectedMaxNormal, EqualsSampledMaximaAtScale) {
  // 131,072 ranks (the largest simulated cluster): 300 sampled maxima, whose spread is about
  // 0.27, so 4 standard errors are about 0.06; the integral gives 4.44.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  constexpr long n = 131072;
  const auto [mean, se] = sampled_maxima(n, 300, rng, z);
  EXPECT_NEAR(expected_max_std_normal(n), mean, 4 * se);
  double prev = 0;  // and it grows with n
  for (long k : {2L, 8L, 64L, 1024L, 16384L, 131072L}) {
    EXPECT_GT(expected_max_std_normal(k), prev) << k;
    prev = expected_max_std_normal(k);
  }
}

}  // namespace
}  // namespace prunex::sim
