// The pieces of `prunex reproduce`'s report against hand arithmetic: relative errors and the
// JSON rows, payloads of small_cnn's layer table (shapes in plan_builder_test.cc: 66,410
// parameters; pruned convs 32x32x3x3, 64x32x3x3, 64x64x3x3), and quantities read from
// hand-written metrics / trace records.
#include <gtest/gtest.h>

#include "analysis/payload_arithmetic.h"
#include "analysis/report_rows.h"
#include "analysis/run_quantities.h"
#include "engine/error.h"
#include "records/bench_rows.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

// Unpruned tensors of small_cnn: first conv 864, batch norm 384, fc 640 + 10.
constexpr int64_t kWhole = 864 + 384 + 650;

// bench --stat: the median ignores one stalled iteration that moves the mean.
TEST(BenchStats, MedianAndMean) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({1e-4, 1e-4, 1e-4, 1e-4, 1.1e-2}), 1e-4);
  EXPECT_DOUBLE_EQ(mean({1e-4, 1e-4, 1e-4, 1e-4, 1.1e-2}), 2.28e-3);
  EXPECT_THROW(median({}), std::exception);
  EXPECT_THROW(mean({}), std::exception);
}

TEST(ReportRows, RelativeErrorAndJson) {
  EXPECT_DOUBLE_EQ(relative_error(6.0, 8.0), 0.25);
  EXPECT_DOUBLE_EQ(relative_error(10.0, 8.0), 0.25);
  EXPECT_DOUBLE_EQ(relative_error(-1.0, -2.0), 0.5);
  EXPECT_THROW(relative_error(1.0, 0.0), UsageError);
  const std::vector<ReportRow> rows = {{"Fig. 9", "a", 4.0, 5.0, "n"},
                                       {"projection", "b", std::nullopt, 3.0, "m"}};
  const auto j = rows_json(rows);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_DOUBLE_EQ(j[0]["rel_error"].get<double>(), 0.25);
  EXPECT_EQ(j[0]["figure"], "Fig. 9");
  EXPECT_TRUE(j[1]["paper"].is_null());
  EXPECT_TRUE(j[1]["rel_error"].is_null());
  EXPECT_EQ(j[1]["ours"].get<double>(), 3.0);
  const std::string md = rows_markdown(rows, "Fig. 9");
  EXPECT_NE(md.find("| `a` | 4.000 | 5.000 | 25.0% | n |"), std::string::npos) << md;
  EXPECT_EQ(md.find("`b`"), std::string::npos);
}

TEST(ReportRows, FourSignificantDigits) {
  EXPECT_EQ(sig4(6.5741), "6.574");
  EXPECT_EQ(sig4(0.027209), "0.02721");
  EXPECT_EQ(sig4(221.88), "221.9");
  EXPECT_EQ(sig4(13.0), "13.00");
  EXPECT_EQ(sig4(0), "0");
  EXPECT_EQ(percent(0.4008, 2), "40.08%");
}

TEST(PayloadArithmetic, SmallCnnKeepHalf) {
  const ModelLayout layout = make_layout("small_cnn");
  const Payload ch = compact_payload(layout, kChannel, 0.5);
  EXPECT_EQ(ch.dense_bytes, 66410 * 4);
  // Half the input channels: 32x16x9 + 64x16x9 + 64x32x9.
  EXPECT_EQ(ch.compact_bytes, (kWhole + 4608 + 9216 + 18432) * 4);
  // Half the filters: 16x32x9 + 32x32x9 + 32x64x9, the same count.
  EXPECT_EQ(compact_payload(layout, kFilter, 0.5).compact_bytes, ch.compact_bytes);
  // Both: 16x16x9 + 32x16x9 + 32x32x9.
  EXPECT_EQ(compact_payload(layout, kFilter | kChannel, 0.5).compact_bytes,
            (kWhole + 2304 + 4608 + 9216) * 4);
  EXPECT_EQ(compact_payload(layout, kChannel, 1.0).compact_bytes, 66410 * 4);
}

TEST(PayloadArithmetic, KeepForFractionIsTheFirstKeepReachingTheTarget) {
  const ModelLayout layout = make_layout("small_cnn");
  for (double target : {0.3, 0.4, 0.5, 0.9}) {
    const KeepForFraction k = keep_for_fraction(layout, kChannel, target);
    EXPECT_GE(k.payload.fraction(), target);
    EXPECT_LT(k.below.fraction(), target);
    EXPECT_EQ(k.payload.compact_bytes, compact_payload(layout, kChannel, k.keep).compact_bytes);
    EXPECT_EQ(k.below.compact_bytes,
              compact_payload(layout, kChannel, k.keep - 1e-3).compact_bytes);
  }
  EXPECT_THROW(keep_for_fraction(layout, kChannel, 0.0), UsageError);
}

nlohmann::json phase(double critical, std::vector<double> per_rank) {
  return {{"critical_path_s", critical}, {"per_rank_s", per_rank}};
}

TEST(RunQuantities, CommunicationFromPhases) {
  // Two ranks; rank 1 takes no part in the inter-node all-reduce (not a leader).
  nlohmann::json m = {{"config", {{"plan_repeats", 1}}}, {"iterations", nlohmann::json::array()}};
  for (int k = 0; k < 2; ++k)
    m["iterations"].push_back(
        {{"phases",
          {{"local_compute", phase(9.0, {9.0, 9.0})},
           {"intra_allreduce", phase(1.0, {1.0, 1.0})},
           {"inter_allreduce", phase(3.0, {3.0, 0.0})},
           {"broadcast", phase(k == 0 ? 2.0 : 0.0, {k == 0 ? 2.0 : 0.0, 0.0})}}},
         {"bytes", {{"inter", 100.0 + k}, {"intra", 50.0}}},
         {"dense_inter_bytes", 200.0}});
  const CommQuantities q = comm_quantities(m, "m");
  EXPECT_DOUBLE_EQ(q.per_iteration_s, (6.0 + 4.0) / 2);
  EXPECT_DOUBLE_EQ(q.share_critical.at("inter_allreduce"), 6.0 / 10.0);
  EXPECT_DOUBLE_EQ(q.share_critical.at("broadcast"), 2.0 / 10.0);
  EXPECT_DOUBLE_EQ(q.seconds.at("inter_allreduce"), 3.0);
  EXPECT_EQ(q.share_critical.count("local_compute"), 0u);
  // Rank sums: intra 4, inter 6, broadcast 2.
  EXPECT_DOUBLE_EQ(q.share_rank_mean.at("intra_allreduce"), 4.0 / 12.0);
  const ByteQuantities b = byte_quantities(m, "m");
  EXPECT_EQ(b.iterations, 2);
  EXPECT_DOUBLE_EQ(b.total_inter, 201.0);
  EXPECT_DOUBLE_EQ(b.total_dense, 400.0);
  EXPECT_DOUBLE_EQ(b.last_inter, 101.0);
  EXPECT_DOUBLE_EQ(b.last_intra, 50.0);
  EXPECT_THROW(comm_quantities(nlohmann::json::object(), "empty"), UsageError);
}

TEST(RunQuantities, TraceBusyTimeCountsOverlapOnce) {
  auto ev = [](int tid, const char* name, double ts, double dur) {
    return nlohmann::json{{"ph", "X"}, {"tid", tid}, {"name", name}, {"ts", ts}, {"dur", dur}};
  };
  const nlohmann::json t = {
      {"traceEvents",
       {ev(0, "allreduce", 0, 10), ev(0, "allreduce", 5, 15), ev(0, "allreduce", 100, 20),
        ev(1, "allreduce", 0, 1000), ev(0, "local_compute", 0, 1000)}}};
  // [0, 20] and [100, 120] microseconds on rank 0, over 2 steps.
  EXPECT_DOUBLE_EQ(trace_busy_seconds(t, "allreduce", 2, "t"), 40e-6 / 2);
}

TEST(RunQuantities, ScalingPoints) {
  const nlohmann::json s = {
      {"ddp",
       {{{"gpus", 8}, {"time_per_epoch_s", 2.0}, {"speedup", 1.0}, {"efficiency", 1.0}},
        {{"gpus", 64}, {"time_per_epoch_s", 0.5}, {"speedup", 4.0}, {"efficiency", 0.5}}}}};
  const auto p = scaling_points(s, "ddp", "s");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_DOUBLE_EQ(p.at(64).speedup, 4.0);
  EXPECT_THROW(scaling_points(s, "topk", "s"), UsageError);
}

}  // namespace
}  // namespace prunex
