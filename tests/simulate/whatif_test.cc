// What-if studies in the simulator: stragglers, degraded NIC rails, node failures. The
// failure model against a Monte Carlo run of the failure process it describes and against a
// brute-force search for the best interval; stragglers and degraded links against times
// written out by hand; the flags' checks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "simulate/failures.h"
#include "simulate/fork_run.h"
#include "simulate/simulate_config.h"
#include "tests/common/sim_topologies.h"

namespace prunex {
namespace {

using namespace sim;

// One segment of `work` seconds that must run without a failure; a failure loses it and
// costs a restart of `restart` seconds, which a failure also interrupts.
double monte_carlo_segment(double work, double restart, double mtbf, std::mt19937_64& rng) {
  std::exponential_distribution<double> next(1 / mtbf);
  double t = 0;
  while (true) {
    const double x = next(rng);
    if (x >= work) return t + work;
    t += x;
    while (true) {  // restart until one completes
      const double y = next(rng);
      if (y >= restart) {
        t += restart;
        break;
      }
      t += y;
    }
  }
}

TEST(Failures, ExpectedWallTimeMatchesAMonteCarloRunOfTheFailureProcess) {
  std::mt19937_64 rng(7);
  for (auto [tau, delta, restart, m] : std::vector<std::array<double, 4>>{
           {200, 20, 50, 1000}, {600, 60, 300, 3600}, {50, 5, 5, 200}}) {
    const int segments = 200000;
    double sum = 0;
    for (int i = 0; i < segments; ++i) sum += monte_carlo_segment(tau + delta, restart, m, rng);
    const double want = daly_expected_wall_s(segments * tau, tau, delta, restart, m);
    EXPECT_NEAR(sum / want, 1.0, 0.01) << "tau " << tau << " M " << m;
  }
}

TEST(Failures, DalysIntervalIsNearTheBestOneFoundBySearch) {
  for (auto [delta, m] :
       std::vector<std::pair<double, double>>{{60, 36000}, {600, 3600}, {10, 1e6}, {300, 900}}) {
    double best = INFINITY, best_tau = 0;
    for (double tau = 1; tau < 5 * m; tau *= 1.0005) {
      const double w = daly_expected_wall_s(1e6, tau, delta, 120, m);
      if (w < best) best = w, best_tau = tau;
    }
    const double daly = daly_expected_wall_s(1e6, daly_interval_s(delta, m), delta, 120, m);
    EXPECT_LE(daly / best, 1.001) << "delta " << delta << " M " << m << " best tau " << best_tau;
    // Young's first-order interval is close where delta << M.
    if (delta / m < 0.01) {
      EXPECT_LE(daly_expected_wall_s(1e6, young_interval_s(delta, m), delta, 120, m) / best, 1.01);
    }
  }
  EXPECT_DOUBLE_EQ(daly_interval_s(5000, 2000), 2000);  // delta >= 2M: the MTBF itself
  const FailureEstimate e = estimate_failures(3600 * 100, 64, 3600 * 64 * 10, 0, 60, 300);
  EXPECT_DOUBLE_EQ(e.system_mtbf_s, 36000);  // 64 nodes of 640 h: 10 h
  EXPECT_DOUBLE_EQ(e.interval_s, e.daly_interval_s);
  EXPECT_GT(e.expected_s, e.solve_s);
  EXPECT_THROW(estimate_failures(1, 1, 0, 0, 1, 1), UsageError);
}

TEST(WhatIf, AStragglerTakesFactorTimesItsComputeAndTheStepWaitsForIt) {
  const Topology t = test::star_topology(2, 2);
  const double flops = 1e12, speed = t.gpu.effective_flops();
  const auto got = fork_run([&] {
    SimConfig cfg{2, 2};
    cfg.compute_factor = {1, 1, 1, 3};
    SimCluster c(t, cfg);
    auto ranks = c.run_compute_ranks(flops);
    ranks.push_back(c.run_compute(flops));
    return ranks;
  });
  ASSERT_EQ(got.size(), 5u);
  for (int r = 0; r < 3; ++r) EXPECT_NEAR(got[r], flops / speed, 1e-9);
  EXPECT_NEAR(got[3], 3 * flops / speed, 1e-9);
  EXPECT_NEAR(got[4], 3 * flops / speed, 1e-9);
}

TEST(WhatIf, ADegradedNicCarriesItsFractionOfTheBandwidth) {
  // One flow from node 0 to node 1: NIC up of node 0, NIC down of node 1 (no switch latency
  // on the test star). Node 0's NIC at 25%: the flow takes 4 x bytes / B.
  const Topology t = test::star_topology(2, 1);
  const double bytes = 1e9;
  const auto got = fork_run([&] {
    SimConfig cfg{2, 1};
    cfg.degraded_nics = {{0, -1, 0.25}};
    SimCluster c(t, cfg);
    const auto f = c.run_flows({{0, 1, bytes}, {1, 0, bytes}});
    return std::vector<double>{f[0].seconds, f[1].seconds};
  });
  EXPECT_NEAR(got[0] / (4 * bytes / test::kNicBw + test::kNicLat), 1.0, 1e-6);
  EXPECT_NEAR(got[1] / (4 * bytes / test::kNicBw + test::kNicLat), 1.0, 1e-6);  // both ways
}

SimulateConfig base_config() {
  SimulateConfig c;
  c.topology = "puhti";
  c.nodes = 4;
  c.gpus_per_node = 4;
  c.model = "small_cnn";
  c.iterations = 1;
  return c;
}

TEST(WhatIf, FlagsAreCheckedAndAFractionDrawIsSeeded) {
  auto slow_of = [](const SimulateConfig& c) {
    std::set<int> out;
    const auto f = make_spec(c, false).sim.compute_factor;
    for (std::size_t r = 0; r < f.size(); ++r)
      if (f[r] > 1) out.insert(static_cast<int>(r));
    return out;
  };
  SimulateConfig c = base_config();
  c.straggler_gpus = "3,15";
  EXPECT_EQ(slow_of(c), (std::set<int>{3, 15}));
  c.straggler_gpus = "16";  // 16 GPUs: ranks 0-15
  EXPECT_THROW(make_spec(c, false), UsageError);
  c.straggler_gpus = "1,,2";
  EXPECT_THROW(make_spec(c, false), UsageError);
  c.straggler_gpus = "";
  c.straggler_fraction = 0.25;
  const auto drawn = slow_of(c);
  EXPECT_EQ(drawn.size(), 4u);
  EXPECT_EQ(slow_of(c), drawn);  // the same seed, the same GPUs
  c.straggler_fraction = 0.01;   // rounds to 0 of 16: still one
  EXPECT_EQ(slow_of(c).size(), 1u);
  c.straggler_gpus = "1";
  EXPECT_THROW(make_spec(c, false), UsageError);  // both
  c = base_config();
  c.degrade_nic = "1:0=0.5,2=0.1";
  const auto d = make_spec(c, false).sim.degraded_nics;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].node, 1);
  EXPECT_EQ(d[0].rail, 0);
  EXPECT_DOUBLE_EQ(d[0].fraction, 0.5);
  EXPECT_EQ(d[1].rail, -1);
  for (const char* bad : {"4=0.5", "1:2=0.5", "1=0", "1=1.5", "1", "x=0.5"}) {
    c.degrade_nic = bad;
    EXPECT_THROW(make_spec(c, false), UsageError) << bad;
  }
  c = base_config();
  c.mtbf_hours = 1000;
  EXPECT_THROW(make_spec(c, false), UsageError);  // no checkpoint / restart times
  c.checkpoint_seconds = 30;
  c.restart_seconds = 120;
  EXPECT_NO_THROW(make_spec(c, false));
}

}  // namespace
}  // namespace prunex
