// Calibration (calibration/calibration.h): per-key memory speeds from live phase samples
// (fit_memory_speeds), relative links, which group's fit a world collective takes, and a
// calibration from given times (rate_calibration.h); checked against numbers made by hand.
#include <gtest/gtest.h>

#include "backends/simgrid/sim_cluster.h"
#include "calibration/calibration.h"
#include "calibration/rate_calibration.h"
#include "simulate/fork_run.h"
#include "tests/common/sim_topologies.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

sim::MemorySample sample(std::map<std::string, double> bytes, double seconds) {
  return {std::move(bytes), seconds, 4};
}

TEST(MemorySpeeds, OneKeyIsTheMedianOfTheSamplesSpeeds) {
  // 1 and 3 GB/s: the median of two is their mean.
  const auto f = sim::fit_memory_speeds({sample({{"x", 1e6}}, 1e-3), sample({{"x", 3e6}}, 1e-3)});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f.at("x").bandwidth_Bps, 2e9);
  EXPECT_DOUBLE_EQ(f.at("x").bytes, 4e6);
  EXPECT_DOUBLE_EQ(f.at("x").seconds, 2e-3);
  EXPECT_EQ(f.at("x").iterations, 2);
  EXPECT_EQ(f.at("x").ranks, 4);
}

TEST(MemorySpeeds, OneStalledIterationDoesNotMoveTheSpeed) {
  // Four iterations at 2 GB/s and one where a rank lost its core for 3 ms: summed bytes over
  // summed seconds would give 4e5 B / 3.2 ms = 0.125 GB/s; the median keeps 2 GB/s.
  std::vector<sim::MemorySample> ss(4, sample({{"pack", 8e4}}, 4e-5));
  ss.push_back(sample({{"pack", 8e4}}, 3.04e-3));
  const auto f = sim::fit_memory_speeds(ss);
  EXPECT_DOUBLE_EQ(f.at("pack").bandwidth_Bps, 2e9);
  EXPECT_EQ(f.at("pack").iterations, 5);
}

TEST(MemorySpeeds, ASecondKeyGetsTheTimeLeftAfterTheKnownOne) {
  // pack at 10 GB/s alone in frozen iterations; with the plan build (2 GB/s) before it.
  const double pack = 3e6, build = 2e6;
  const double t_pack = pack / 10e9, t_both = t_pack + build / 2e9;
  const auto f =
      sim::fit_memory_speeds({sample({{"pack", pack}, {"build", build}}, t_both),
                              sample({{"pack", pack}, {"build", build}}, t_both),
                              sample({{"pack", pack}}, t_pack), sample({{"pack", pack}}, t_pack)});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f.at("pack").bandwidth_Bps, 10e9, 1e-3);
  EXPECT_NEAR(f.at("build").bandwidth_Bps, 2e9, 1e-3);
  EXPECT_EQ(f.at("pack").iterations, 2);
  EXPECT_EQ(f.at("build").iterations, 2);
}

TEST(MemorySpeeds, KeysNeverSeenAloneShareOneSpeed) {
  const auto f = sim::fit_memory_speeds({sample({{"a", 1e6}, {"b", 3e6}}, 2e-3)});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_DOUBLE_EQ(f.at("a").bandwidth_Bps, 2e9);
  EXPECT_DOUBLE_EQ(f.at("b").bandwidth_Bps, 2e9);
}

TEST(MemorySpeeds, NoTimeLeftLeavesTheKeyUnfitted) {
  // The two-key sample took less than the known key alone predicts (noise): nothing is left
  // for the build, which stays unfitted (the simulator then uses the phase's speed).
  const auto f = sim::fit_memory_speeds(
      {sample({{"pack", 3e6}}, 3e-4), sample({{"pack", 3e6}, {"build", 2e6}}, 2e-4)});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f.count("pack"));
  EXPECT_TRUE(sim::fit_memory_speeds({}).empty());
}

// `prunex calibrate --fit line` of rows benched on fitted_on (relative: kept relative to its
// links, as with --links relative and fitted_on as --topology).
sim::Calibration fit_lines(const Topology& fitted_on, const std::vector<sim::BenchPoint>& rows,
                           bool relative = false) {
  sim::Calibration cal;
  cal.links_relative = relative;
  cal.inter_base_Bps = sim::node_inter_Bps(fitted_on);
  cal.inter_base_latency_s = sim::node_inter_latency_s(fitted_on);
  std::vector<sim::FittedPoint> pts;
  sim::FitOptions opt;
  opt.mode = sim::FitMode::line;
  sim::fit_bench(fitted_on, rows, opt, cal, pts);
  return cal;
}

// The seconds of one collective (ring) on `target` with cal applied, nodes x gpn, as
// simulate runs it (in a child process: one SimGrid engine per process).
double simulated_seconds(const sim::Calibration& cal, const Topology& target, int nodes, int gpn,
                         CollectiveOp op, Group group, double bytes) {
  return sim::fork_run([&] {
    const Topology t = sim::apply_calibration(target, cal, nodes * gpn);
    sim::SimConfig cfg{nodes, gpn};
    cfg.op_costs = sim::op_costs(cal, t, nodes, gpn);
    sim::SimCluster c(t, cfg);
    return std::vector<double>{
        c.run_collective(op, sim::Algo::ring, group, static_cast<std::size_t>(bytes)).seconds};
  })[0];
}

// calibrate --links relative: a fit on an emulated cluster at one link speed predicts it at
// another. Bench rows of a 2 x 1 inter-node all-reduce over 2 rails at 50 Mbit/s are made by
// hand as a link that delivers 80% of its rate after 300 us of software per call; on the same
// cluster at 5 Mbit/s per rail with 1 ms one way, the same software and efficiency give
// 300 us + 2 x 1 ms (the 2-node ring's two steps) + S / (0.8 x 2 x 5 Mbit/s).
TEST(RelativeLinks, AFitAtOneLinkSpeedPredictsAnother) {
  const double alpha = 300e-6, eta = 0.8;
  Topology fitted_on = test::star_topology(2, 1, /*rails=*/2);
  fitted_on.nic.link = {50e6 / 8, 0.0};
  Topology target = fitted_on;
  target.nic.link = {5e6 / 8, 1e-3};
  std::vector<sim::BenchPoint> rows;
  for (double s = 1024; s <= 1048576; s *= 4)
    for (Group g : {Group::inter, Group::world})
      rows.push_back(
          {"by-hand", CollectiveOp::allreduce, g, 2, 1, 2, s, alpha + s / (eta * 2 * 50e6 / 8)});
  const sim::Calibration relative = fit_lines(fitted_on, rows, true);
  const sim::Calibration absolute = fit_lines(fitted_on, rows, false);
  auto allreduce = [&](const sim::Calibration& cal, Group g, double bytes) {
    return simulated_seconds(cal, target, 2, 1, CollectiveOp::allreduce, g, bytes);
  };
  for (double s : {4096.0, 262144.0}) {
    const double slow = alpha + 2 * 1e-3 + s / (eta * 2 * 5e6 / 8);
    EXPECT_NEAR(allreduce(relative, Group::inter, s), slow, 1e-3 * slow)
        << s << " B inter, relative";
    EXPECT_NEAR(allreduce(relative, Group::world, s), slow, 1e-3 * slow)
        << s << " B world, relative";
    // Absolute (the default): the fitted links replace the target's, as measured at 50 Mbit/s.
    const double measured = alpha + s / (eta * 2 * 50e6 / 8);
    EXPECT_NEAR(allreduce(absolute, Group::inter, s), measured, 1e-3 * measured)
        << s << " B inter, absolute";
  }
}

// A world of one rank per node holds the ranks and links of the leaders' group, and a world on
// one node those of a node's group: a calibration benched on 2 x 2 (world rows: 4 ranks, 2 per
// node) costs a 2 x 1 world as its inter rows measured the 2 leaders, and a 1 x 2 world as its
// intra rows (every step inside the node), not as 4-rank rings. A world fit made on one rank
// per node stays the world's.
// Rows by hand: alpha + S / B with a different (alpha, B) per group.
TEST(CalibratedGroups, AWorldOfOneRankPerNodeTakesTheFitOfItsLayout) {
  struct Line {
    double alpha, Bps;
  };
  const Line world{5e-3, 1e6}, inter{1e-3, 4e6}, intra{1e-4, 40e6};
  auto rows_of = [](Group g, int nodes, int gpn, int ranks, Line l) {
    std::vector<sim::BenchPoint> rows;
    for (double s = 1024; s <= 1048576; s *= 4)
      rows.push_back(
          {"by-hand", CollectiveOp::allreduce, g, nodes, gpn, ranks, s, l.alpha + s / l.Bps});
    return rows;
  };
  Topology base = test::star_topology(2, 2, /*rails=*/1);
  base.nic.link = {50e6 / 8, 0.0};
  auto world_seconds = [&](const std::vector<sim::BenchPoint>& rows, int nodes, int gpn,
                           double bytes) {
    return simulated_seconds(fit_lines(base, rows), base, nodes, gpn, CollectiveOp::allreduce,
                             Group::world, bytes);
  };
  std::vector<sim::BenchPoint> bench_2x2 = rows_of(Group::world, 2, 2, 4, world);
  for (const auto& r : rows_of(Group::inter, 2, 2, 2, inter)) bench_2x2.push_back(r);
  for (const auto& r : rows_of(Group::intra, 2, 2, 2, intra)) bench_2x2.push_back(r);
  const double s = 262144;
  auto near = [](double expected) { return 1e-3 * expected; };
  const double as_inter = inter.alpha + s / inter.Bps, as_intra = intra.alpha + s / intra.Bps;
  const double as_world = world.alpha + s / world.Bps;
  EXPECT_NEAR(world_seconds(bench_2x2, 2, 1, s), as_inter, near(as_inter)) << "2 x 1 world";
  EXPECT_NEAR(world_seconds(bench_2x2, 1, 2, s), as_intra, near(as_intra)) << "1 x 2 world";
  EXPECT_NEAR(world_seconds(bench_2x2, 2, 2, s), as_world, near(as_world)) << "2 x 2 world";
  // World rows measured on 2 x 1 (with inter rows of other speeds): the world's own fit.
  std::vector<sim::BenchPoint> bench_2x1 = rows_of(Group::world, 2, 1, 2, world);
  for (const auto& r : rows_of(Group::inter, 2, 1, 2, inter)) bench_2x1.push_back(r);
  EXPECT_NEAR(world_seconds(bench_2x1, 2, 1, s), as_world, near(as_world))
      << "2 x 1 world, fit on 2 x 1";
}

// A tier whose rows fix no bandwidth (latency only: here broadcasts that return at once, as a
// receiver that leaves a barrier late sees them, beside all-reduces of 60 ms and more) keeps
// the topology's link bandwidth; the all-reduce's own fit still prices it, alpha + S / B, on
// absolute and relative links alike. (A link of unbounded speed carried the op's bytes
// scaled 1e24 x, and SimGrid moved them in no time: the all-reduce cost its latency only.)
TEST(CalibratedGroups, ALatencyOnlyTierKeepsTheLinksAndTheOpsCost) {
  const double alpha = 60e-3, Bps = 1e6;
  Topology base = test::star_topology(2, 1, /*rails=*/2);
  base.nic.link = {1.25e6, 0.0};
  std::vector<sim::BenchPoint> rows;
  for (double s = 64; s <= 262144; s *= 4) {
    rows.push_back({"by-hand", CollectiveOp::allreduce, Group::inter, 2, 1, 2, s, alpha + s / Bps});
    rows.push_back({"by-hand", CollectiveOp::broadcast, Group::inter, 2, 1, 2, s, 20e-6});
  }
  for (bool relative : {false, true}) {
    const sim::Calibration cal = fit_lines(base, rows, relative);
    ASSERT_GE(cal.tiers.at("inter").bandwidth_Bps, sim::kUnboundedBps) << "not the case tested";
    EXPECT_EQ(sim::node_inter_Bps(sim::apply_calibration(base, cal, 2)), sim::node_inter_Bps(base))
        << "relative " << relative;
    const double s = 262144, expected = alpha + s / Bps;
    EXPECT_NEAR(simulated_seconds(cal, base, 2, 1, CollectiveOp::allreduce, Group::inter, s),
                expected, 1e-3 * expected)
        << "relative " << relative;
  }
}

// A calibration from given times (calibration_from_times) prices each given collective at its
// time on the simulated cluster, and other sizes and rank counts at the same bus bandwidth.
// The times are those `prunex reproduce` gives it (the paper's phases on Puhti, 16 x 4):
// bus bandwidth = 2(n-1)/n x S / t for an all-reduce, S / t for a broadcast.
TEST(RateCalibration, EachGivenCollectiveTakesItsTimeAndOtherSizesItsRate) {
  const Topology puhti = achieved_bandwidths(load_topology("puhti"));
  const double dense = 232.7e6, compact = 116.7e6;
  const std::vector<sim::TargetTime> targets = {
      {"intra all-reduce", CollectiveOp::allreduce, Group::intra, 16, 4, dense, 17.8e-3},
      {"broadcast", CollectiveOp::broadcast, Group::intra, 16, 4, compact, 13.8e-3},
      {"inter all-reduce", CollectiveOp::allreduce, Group::inter, 16, 4, compact, 68.4e-3},
      {"world all-reduce", CollectiveOp::allreduce, Group::world, 16, 4, dense, 0.5},
  };
  std::vector<sim::RateFit> fits;
  const sim::Calibration cal = sim::calibration_from_times(puhti, targets, "by hand", &fits);
  ASSERT_EQ(fits.size(), targets.size());
  for (const auto& x : targets) {
    const double got =
        simulated_seconds(cal, puhti, x.nodes, x.gpus_per_node, x.op, x.group, x.bytes);
    EXPECT_NEAR(got, x.seconds, 1e-3 * x.seconds) << x.what;
  }
  // The leaders' rate on 2 nodes: the 16-node ring's 2 x 15 latency steps of L (NIC and
  // switch) leave 68.4 ms - 30 L for 2 x 15/16 S, so 2 nodes take 2 L + S at that rate.
  const double L = sim::node_inter_latency_s(puhti);
  const double inter_busbw = 2.0 * 15 / 16 * compact / (68.4e-3 - 30 * L);
  const double inter2 = 2 * L + compact / inter_busbw;
  EXPECT_NEAR(simulated_seconds(cal, puhti, 2, 4, CollectiveOp::allreduce, Group::inter, compact),
              inter2, 1e-4 * inter2);
  // The world ring at 8 GPUs: 2 x 7/8 S at the 64-GPU ring's bus bandwidth.
  const double world_busbw = 2.0 * 63 / 64 * dense / 0.5;
  const double world8 = 2.0 * 7 / 8 * dense / world_busbw;
  EXPECT_NEAR(simulated_seconds(cal, puhti, 2, 4, CollectiveOp::allreduce, Group::world, dense),
              world8, 2e-3 * world8);
  // Each fit is a share of the hardware's link, below 1 for these times.
  for (const auto& f : fits) {
    EXPECT_GT(f.efficiency(), 0.0) << f.target.what;
    EXPECT_LT(f.efficiency(), 1.0) << f.target.what;
  }
  EXPECT_THROW(sim::calibration_from_times(puhti, {targets[0], targets[0]}, "twice"), UsageError);
  EXPECT_THROW(sim::calibration_from_times(
                   puhti, {{"too fast", CollectiveOp::allreduce, Group::world, 16, 4, 1e3, 1e-9}},
                   "too fast"),
               UsageError);
}

}  // namespace
}  // namespace prunex
