// Error bands (simulate/error_band.h) against arithmetic: the conformal ranks of a known set
// of residuals, the fallback to coarser groupings, leaving an entry out, and the file's
// round trip and refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/error.h"
#include "simulate/error_band.h"

namespace prunex::sim {
namespace {

BandKey preset_one_fp32() {
  return {};
}

// 19 residuals -0.09, -0.08, ..., +0.09, each from its own entry.
std::vector<Residual> nineteen(const BandKey& key) {
  std::vector<Residual> rows;
  for (int i = -9; i <= 9; ++i) rows.push_back({"e" + std::to_string(i), key, i / 100.0});
  return rows;
}

TEST(ErrorBand, ConformalRanksOfNineteenRows) {
  const BandTable t(nineteen(preset_one_fp32()));
  const ErrorBand b = t.band(preset_one_fp32(), 0.8);
  // a = 0.1, n + 1 = 20: ranks floor(2) = 2 and ceil(18) = 18, i.e. -0.08 and +0.08; the
  // measured time is predicted x exp(-r).
  EXPECT_NEAR(b.low, std::exp(-0.08) - 1, 1e-12);
  EXPECT_NEAR(b.high, std::exp(0.08) - 1, 1e-12);
  EXPECT_EQ(b.rows, 19);
  EXPECT_EQ(b.entries, 19);
  EXPECT_EQ(b.where, "compute-bound training steps at a preset GPU speed on one node in fp32");
  // 50%: a = 0.25, ranks floor(5) = 5 and ceil(15) = 15: -0.05 and +0.05.
  const ErrorBand half = t.band(preset_one_fp32(), 0.5);
  EXPECT_NEAR(half.low, std::exp(-0.05) - 1, 1e-12);
  EXPECT_NEAR(half.high, std::exp(0.05) - 1, 1e-12);
}

TEST(ErrorBand, RanksClampToTheExtremesOfFewRows) {
  std::vector<Residual> rows = nineteen(preset_one_fp32());
  rows.resize(10);  // -0.09 .. 0.00: at 80%, ranks floor(1.1) = 1 and ceil(9.9) = 10
  const ErrorBand b = BandTable(rows).band(preset_one_fp32(), 0.8);
  EXPECT_NEAR(b.low, std::exp(-0.0) - 1, 1e-12);
  EXPECT_NEAR(b.high, std::exp(0.09) - 1, 1e-12);
  // 95%: ranks floor(0.275) = 0 -> 1 and ceil(10.7) = 11 -> 10, the same extremes.
  const ErrorBand wide = BandTable(rows).band(preset_one_fp32(), 0.95);
  EXPECT_NEAR(wide.low, b.low, 1e-12);
  EXPECT_NEAR(wide.high, b.high, 1e-12);
}

TEST(ErrorBand, FallsBackToCoarserGroupsWhenAGroupIsSmall) {
  BandKey multi;
  multi.multi_node = true;
  BandKey amp_multi = multi;
  amp_multi.reduced_precision = true;
  std::vector<Residual> rows = nineteen(preset_one_fp32());
  // Three multi-node amp rows: too few for their own group or for multi-node alone.
  for (int i = 0; i < 3; ++i) rows.push_back({"m" + std::to_string(i), amp_multi, 0.5});
  const BandTable t(rows);
  const ErrorBand b = t.band(amp_multi);
  EXPECT_EQ(b.rows, 22);  // binding and speed: all 22 compute-bound preset-speed rows
  EXPECT_EQ(b.where, "compute-bound training steps at a preset GPU speed");
  // A measured speed has no rows of its own: the binding alone, all 22.
  BandKey measured = amp_multi;
  measured.measured_speed = true;
  EXPECT_EQ(t.band(measured).where, "compute-bound training steps");
  EXPECT_EQ(t.band(measured).rows, 22);
  // Collectives are their own kind: none here.
  BandKey coll;
  coll.collective = true;
  EXPECT_TRUE(t.band(coll).empty());
}

TEST(ErrorBand, ANetworkBoundStepFallsBackToTheCollectives) {
  std::vector<Residual> rows = nineteen(preset_one_fp32());
  BandKey coll;
  coll.collective = true;
  for (int i = 0; i < 10; ++i) rows.push_back({"c" + std::to_string(i), coll, 1.0 + i});
  const BandKey net = bound_by(preset_one_fp32(), 0.9);
  ASSERT_TRUE(net.network_bound);
  const ErrorBand b = BandTable(rows).band(net);
  // No network-bound step among the rows: the 10 collective rows 1.0 .. 10.0; at 80%, ranks
  // floor(1.1) = 1 and ceil(9.9) = 10.
  EXPECT_EQ(b.rows, 10);
  EXPECT_EQ(b.where, "network-bound training steps and collectives");
  EXPECT_NEAR(b.low, std::exp(-10.0) - 1, 1e-12);
  EXPECT_NEAR(b.high, std::exp(-1.0) - 1, 1e-12);
  // At half the step or less, compute binds; a collective's key never is network-bound.
  EXPECT_FALSE(bound_by(preset_one_fp32(), 0.5).network_bound);
  EXPECT_FALSE(bound_by(coll, 0.9).network_bound);
}

TEST(ErrorBand, LeavingAnEntryOutDropsItsRows) {
  std::vector<Residual> rows = nineteen(preset_one_fp32());
  for (auto& r : rows)
    if (r.log_ratio > 0.045) r.entry = "big";  // +0.05 .. +0.09 as one entry
  const BandTable t(rows);
  const ErrorBand b = t.band(preset_one_fp32(), 0.8, "big");
  // 14 rows -0.09 .. +0.04: ranks floor(1.5) = 1 and ceil(13.5) = 14.
  EXPECT_EQ(b.rows, 14);
  EXPECT_NEAR(b.low, std::exp(-0.04) - 1, 1e-12);
  EXPECT_NEAR(b.high, std::exp(0.09) - 1, 1e-12);
}

TEST(ErrorBand, TooFewRowsOrEntriesGiveNoBand) {
  std::vector<Residual> rows = nineteen(preset_one_fp32());
  rows.resize(kBandMinRows - 1);
  EXPECT_TRUE(BandTable(rows).band(preset_one_fp32()).empty());
  rows = nineteen(preset_one_fp32());
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i].entry = "e" + std::to_string(i % (kBandMinEntries - 1));
  EXPECT_TRUE(BandTable(rows).band(preset_one_fp32()).empty());
}

class ResidualsFile : public ::testing::Test {
 protected:
  std::string path = (std::filesystem::temp_directory_path() /
                      ("prunex_residuals_" + std::to_string(::getpid()) + ".json"))
                         .string();
  void TearDown() override { std::remove(path.c_str()); }
  void write(const std::string& text) { std::ofstream(path) << text; }
};

TEST_F(ResidualsFile, RoundTrips) {
  BandKey k;
  k.measured_speed = k.multi_node = k.network_bound = true;
  BandKey c;
  c.collective = true;
  const std::vector<Residual> rows = {{"a/x", k, 0.25}, {"b/y", c, -0.5}};
  write(residuals_json(rows).dump());
  const BandTable t = BandTable::read(path);
  ASSERT_EQ(t.rows().size(), 2u);
  EXPECT_EQ(t.rows()[0].entry, "a/x");
  EXPECT_TRUE(t.rows()[0].key.measured_speed && t.rows()[0].key.multi_node &&
              t.rows()[0].key.network_bound);
  EXPECT_FALSE(t.rows()[0].key.reduced_precision || t.rows()[0].key.collective);
  EXPECT_TRUE(t.rows()[1].key.collective);
  EXPECT_DOUBLE_EQ(t.rows()[1].log_ratio, -0.5);
  EXPECT_EQ(t.source(), path);
}

TEST_F(ResidualsFile, RefusesAWordItDoesNotKnowNamingTheKey) {
  write(R"({"rows": [{"entry": "a", "kind": "training", "bound": "compute", "speed": "fitted",
            "nodes": "one", "precision": "fp32", "log_ratio": 0.1}]})");
  try {
    BandTable::read(path);
    FAIL() << "read a speed 'fitted'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rows[0].speed"), std::string::npos) << e.what();
  }
  write(R"({"rows": [{"entry": "a", "kind": "collective", "log_ratio": 0.1, "extra": 1}]})");
  EXPECT_THROW(BandTable::read(path), UsageError);
}

}  // namespace
}  // namespace prunex::sim
