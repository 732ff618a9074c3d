// Checkpoints: the rank-file format against the published CRC-32 check value and against every
// truncation and bit flip; the H-SADMM consensus saved mid-run and restored into a fresh
// object continues exactly as the uninterrupted one (z bytes, masks, freezing), on 2 x 2
// ranks as threads; an iteration record read back equals the hand-built one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/inproc/inproc_communicator.h"
#include "engine/hsadmm_consensus.h"
#include "records/checkpoint.h"
#include "records/run_record.h"

namespace prunex {
namespace {

TEST(CheckpointFormat, Crc32CheckValue) {
  // The CRC-32 (IEEE 802.3) of "123456789" is 0xCBF43926 (the catalogue's check value).
  EXPECT_EQ(crc32_of("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32_of(""), 0u);
}

StateSections sample_sections() {
  StateSections s;
  put_state<float>(s, "a/floats", {1.5f, -2.0f, 3.25f});
  put_state_value<int64_t>(s, "b/value", -7);
  s["c/empty"] = "";
  return s;
}

TEST(CheckpointFormat, RoundTripAndLayout) {
  const StateSections s = sample_sections();
  const std::string bytes = encode_sections(s);
  // magic 12 + count 4 + per section (4 + name + 8 + data) + crc 4
  const size_t expect = 12 + 4 + (4 + 8 + 12 + 8) + (4 + 7 + 8 + 8) + (4 + 7 + 8 + 0) + 4;
  EXPECT_EQ(bytes.size(), expect);
  const StateSections back = decode_sections(bytes, "test");
  EXPECT_EQ(back, s);
  EXPECT_EQ(get_state<float>(back, "a/floats", 3)[2], 3.25f);
  EXPECT_EQ(get_state_value<int64_t>(back, "b/value"), -7);
  EXPECT_THROW(get_state<float>(back, "a/floats", 4), UsageError);
  EXPECT_THROW(get_state<float>(back, "missing"), UsageError);
}

TEST(CheckpointFormat, EveryTruncationAndBitFlipIsRefused) {
  const std::string bytes = encode_sections(sample_sections());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(decode_sections(std::string_view(bytes).substr(0, n), "cut"), UsageError) << n;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ (1 << bit));
      EXPECT_THROW(decode_sections(b, "flip"), UsageError) << i << ":" << bit;
    }
}

TEST(CheckpointFormat, HostileLengthsDoNotAllocate) {
  // A valid trailer over a body that claims a 2^60-byte section: refused as truncated.
  std::string b = "PRUNEXCKPT1\n";
  const uint32_t count = 1, name_len = 1;
  const uint64_t len = uint64_t{1} << 60;
  b.append(reinterpret_cast<const char*>(&count), 4);
  b.append(reinterpret_cast<const char*>(&name_len), 4);
  b += "x";
  b.append(reinterpret_cast<const char*>(&len), 8);
  const uint32_t crc = crc32_of(b);
  b.append(reinterpret_cast<const char*>(&crc), 4);
  EXPECT_THROW(decode_sections(b, "huge"), UsageError);
}

// One conv weight of 4 filters x 3 x 1 x 1, filter-pruned to 2 filters; theta by eq. 7 in
// closed form for f_r = 0.5 ||theta - a_r||^2 (a_r differs per rank, so masks move).
ModelLayout conv_layout() {
  ModelLayout l;
  l.model = "c";
  LayerInfo w;
  w.name = "w";
  w.role = LayerRole::conv_weight;
  w.shape = {4, 3, 1, 1};
  l.layers.push_back(w);
  return l;
}

void theta_step(const HsadmmConsensus& admm, int r, int k, std::vector<float>& theta) {
  const double rho1 = admm.rho1(0);
  for (size_t d = 0; d < theta.size(); ++d) {
    const double a = std::sin(0.7 * d + 1.3 * r) + 0.05 * k * (d % 4) - 0.3 * (r % 2);
    theta[d] = static_cast<float>((a + rho1 * (admm.z_i()[d] - admm.u()[d])) / (1 + rho1));
  }
}

// z after each of iterations 1..K on every rank; save_after > 0: the consensus is saved after
// that iteration, destroyed, and a fresh one restored from the saved sections continues.
std::vector<std::vector<std::vector<float>>> run(int K, int save_after) {
  const ModelLayout layout = conv_layout();
  const SparsitySpec spec = SparsitySpec::build(layout, kFilter, KeepRate::of_count(2), {}, {"w"});
  HsadmmConfig cfg;
  cfg.rho1 = 0.5;
  cfg.rho2 = 0.2;
  cfg.t_freeze = 2;  // frozen after 2: iteration 3 builds the frozen plan, 4 on reuse it
  std::vector<std::vector<std::vector<float>>> z(4);
  spawn_ranks(NodeGrouping{4, 2}, [&](Communicator& comm) {
    const int r = comm.world_rank();
    std::vector<float> theta(12, 0.f);
    auto admm = std::make_unique<HsadmmConsensus>(layout, spec, cfg, 1 << 20, Strategy::hsadmm,
                                                  comm, theta.data());
    NullPhaseTimer timer;
    for (int k = 1; k <= K; ++k) {
      theta_step(*admm, r, k, theta);
      admm->step(k, theta.data(), timer);
      z[r].emplace_back(admm->z(), admm->z() + admm->size());
      if (k == save_after) {
        StateSections saved;
        admm->save_state(saved);
        const std::string bytes = encode_sections(saved);
        std::vector<float> other(12, 9.f);  // a different theta0: everything must come back
        admm = std::make_unique<HsadmmConsensus>(layout, spec, cfg, 1 << 20, Strategy::hsadmm, comm,
                                                 other.data());
        admm->load_state(decode_sections(bytes, "rank"));
        EXPECT_TRUE(admm->frozen());  // t_freeze 2
      }
    }
  });
  return z;
}

TEST(CheckpointConsensus, RestoredRunContinuesBitForBit) {
  const auto straight = run(6, 0);
  for (int save_after : {2, 3, 5}) {  // before, at and after the frozen plan's reuse
    const auto resumed = run(6, save_after);
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 6; ++k)
        ASSERT_EQ(0, std::memcmp(straight[r][k].data(), resumed[r][k].data(), 12 * sizeof(float)))
            << "rank " << r << " iteration " << k + 1 << " saved after " << save_after;
  }
  // The masks did move: z differs between iterations 1 and 6.
  EXPECT_NE(straight[0][0], straight[0][5]);
}

TEST(CheckpointRecord, IterationReadBackEqualsTheRecord) {
  IterationRecord it;
  it.iteration = 3;
  it.phase_seconds[Phase::local_compute] = {0.5, 0.25};
  it.phase_seconds[Phase::inter_allreduce] = {0.125, 0};
  it.wall_seconds = 0.75;
  it.bytes = {10, 20.5, 0};
  it.dense_inter_bytes = 99;
  it.density["w"] = 0.5;
  it.residuals["w"] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  it.rho["w"] = {0.1, 0.2};
  it.loss = 0.1 + 0.2;  // a value that needs all 17 digits
  it.accuracy = 1.0 / 3.0;
  it.mask_frozen = true;
  it.extra["lr"] = 0.05;
  const IterationRecord back = iteration_from_json(iteration_json(it), "t");
  EXPECT_EQ(back.iteration, 3);
  EXPECT_EQ(back.phase_seconds, it.phase_seconds);
  EXPECT_EQ(back.wall_seconds, 0.75);
  EXPECT_EQ(back.bytes.inter, 20.5);
  EXPECT_EQ(back.dense_inter_bytes, 99);
  EXPECT_EQ(back.density, it.density);
  ASSERT_EQ(back.residuals.at("w").size(), 2u);
  EXPECT_EQ(back.residuals.at("w")[1].s_inter, 8);
  EXPECT_EQ(back.rho.at("w"), std::make_pair(0.1, 0.2));
  EXPECT_EQ(*back.loss, 0.1 + 0.2);
  EXPECT_EQ(*back.accuracy, 1.0 / 3.0);
  EXPECT_TRUE(back.mask_frozen);
  EXPECT_EQ(back.extra, it.extra);
  EXPECT_THROW(iteration_from_json({{"iteration", "x"}}, "t"), UsageError);
}

}  // namespace
}  // namespace prunex
