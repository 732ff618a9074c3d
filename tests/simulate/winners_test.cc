// simulate/winners.h's reading of a grid, against arithmetic: the crossover interpolated in
// log bandwidth, the grid's edges, and a cell's winner, runner-up and margin.
#include <gtest/gtest.h>

#include <cmath>

#include "simulate/winners.h"

namespace prunex::sim {
namespace {

TEST(Winners, CrossoverInterpolatesInLogBandwidth) {
  // t_ddp / t_hsadmm 1.5 at 10 Gbit/s, 0.5 at 100: halfway in log10, 10^1.5.
  const Crossover c = crossover(64, {1, 10, 100}, {3.0, 1.5, 0.5});
  EXPECT_EQ(c.pays, "below");
  ASSERT_EQ(c.crossings_gbits.size(), 1u);
  EXPECT_NEAR(c.crossings_gbits[0], std::pow(10.0, 1.5), 1e-9);
  // A quarter of the way: ratio 1.25 -> 1 over 1.25 -> 0.25.
  EXPECT_NEAR(crossover(8, {25, 400}, {1.25, 0.25}).crossings_gbits.at(0),
              25 * std::pow(16.0, 0.25), 1e-9);
  // ddp faster at the low end (more NICs in its ring), hsadmm above 10^0.5 Gbit/s.
  const Crossover up = crossover(8, {1, 10}, {0.5, 1.5});
  EXPECT_EQ(up.pays, "above");
  EXPECT_NEAR(up.crossings_gbits.at(0), std::pow(10.0, 0.5), 1e-9);
  EXPECT_EQ(crossover(8, {1, 10, 100}, {0.5, 1.5, 0.5}).pays, "between");
  EXPECT_EQ(crossover(8, {1, 10, 100}, {0.5, 1.5, 0.5}).crossings_gbits.size(), 2u);
  EXPECT_EQ(crossover(8, {10, 100}, {1.2, 1.01}).pays, "everywhere");
  EXPECT_EQ(crossover(8, {10, 100}, {0.9, 0.8}).pays, "nowhere");
  EXPECT_EQ(crossover(8, {10, 100}, {1.0, 0.8}).pays, "nowhere");  // a tie is not a win
}

TEST(Winners, ACellNamesTheFastestAndItsMargin) {
  std::vector<GridPoint> grid;
  for (const auto& [s, t] :
       std::vector<std::pair<std::string, double>>{{"hsadmm", 2.0}, {"ddp", 3.0}, {"fp16", 2.5}}) {
    ScalingPoint p;
    p.strategy = s;
    p.gpus = 16;
    p.epoch_s = t;
    grid.push_back({25, p});
  }
  const nlohmann::json w = winners_json(
      grid, {{"hsadmm", "a.json", 0.8965}, {"ddp", "b.json", 0.9189}}, nlohmann::json::object());
  ASSERT_EQ(w["cells"].size(), 1u);
  const auto& c = w["cells"][0];
  EXPECT_EQ(c["winner"], "hsadmm");
  EXPECT_EQ(c["runner_up"], "fp16");
  EXPECT_DOUBLE_EQ(c["margin"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(c["ddp_over_winner"].get<double>(), 1.5);
  EXPECT_EQ(c["verdict"],
            "hsadmm: 1.50x faster per epoch than ddp, at -2.2 points of accuracy in the measured "
            "runs (runner-up fp16, 1.25x)");
  ASSERT_EQ(w["crossovers"].size(), 1u);
  EXPECT_EQ(w["crossovers"][0]["hsadmm_pays"], "everywhere");
}

}  // namespace
}  // namespace prunex::sim
