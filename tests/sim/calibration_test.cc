// fit_memory_speeds (backends/simgrid/calibration.h): per-key memory speeds from live phase
// samples, checked against speeds the samples were generated from by hand.
#include <gtest/gtest.h>

#include "backends/simgrid/calibration.h"

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

}  // namespace
}  // namespace prunex
