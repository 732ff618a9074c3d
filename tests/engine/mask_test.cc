#include "engine/mask.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/projection.h"
#include "tests/engine/sparsity_fixtures.h"

namespace prunex {
namespace {

// A node's masks: the projection of its own random weights.
ModelMask node_mask(const ModelLayout& layout, const SparsitySpec& spec, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<float>> w;
  std::vector<float*> ptrs;
  for (const auto& l : layout.layers) w.push_back(testing::random_tensor(l.numel(), rng));
  for (auto& t : w) ptrs.push_back(t.data());
  return project_model(ptrs.data(), layout, spec);
}

// Element mask of a layer as floats (1 kept, 0 pruned).
std::vector<float> elements(const LayerMask& m) {
  std::vector<float> e(m.dims.numel(), 1.0f);
  apply_mask(e.data(), m);
  return e;
}

TEST(LayerMask, DensityCountsTheProduct) {
  LayerMask m = LayerMask::dense({4, 6, 9});
  m.keep_out = {1, 0, 1, 0};
  m.keep_in = {1, 1, 0, 1, 0, 0};
  EXPECT_EQ(m.kept_elements(), 2 * 3 * 9);
  m.keep_shape[0] = 0;  // channel 0 loses one of its 9 positions
  EXPECT_EQ(m.kept_elements(), 2 * (3 * 9 - 1));
  auto e = elements(m);
  EXPECT_EQ(std::count(e.begin(), e.end(), 1.0f), m.kept_elements());
  EXPECT_DOUBLE_EQ(m.density(), double(2 * 26) / (4 * 6 * 9));
  EXPECT_EQ(m.k_out(), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(m.k_in(), (std::vector<int32_t>{0, 1, 3}));
}

TEST(LayerMask, ElementMaskIsWhatApplyMaskKeeps) {
  const ModelLayout layout = testing::tiny_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
  const ModelMask mask = node_mask(layout, spec, 5);
  for (size_t l = 0; l < mask.size(); ++l) {
    const std::vector<float> e = elements(mask[l]);
    const std::vector<uint8_t> bytes = element_mask(mask[l]);
    ASSERT_EQ(bytes.size(), e.size());
    for (size_t i = 0; i < e.size(); ++i)
      ASSERT_EQ(bytes[i], e[i] == 1.0f ? 1 : 0) << l << " " << i;
  }
}

TEST(ModelMask, KeptSectorBytesCountSectorsHoldingAKeptElement) {
  // conv [2, 8, 1x1]: rows of 8 floats = one 32-byte sector each; a dense bias of 9 floats.
  ModelLayout layout;
  layout.layers = {testing::conv("c.weight", 2, 8, 1, 1),
                   testing::vec("c.bias", 9, LayerRole::bias)};
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel, KeepRate::of_fraction(0.5), {}, {"c.weight"});
  ModelMask mask(layout, spec);
  ASSERT_TRUE(mask.pruned(0));
  ASSERT_FALSE(mask.pruned(1));
  const int64_t bias = 2 * 32;  // 9 floats: 2 sectors
  EXPECT_EQ(kept_sector_bytes(layout, mask), 2 * 32 + bias);
  mask[0].keep_in = {0, 0, 0, 0, 0, 0, 0, 1};  // one float kept per row: still 2 sectors
  EXPECT_EQ(kept_sector_bytes(layout, mask), 2 * 32 + bias);
  mask[0].keep_out = {1, 0};  // one row
  EXPECT_EQ(kept_sector_bytes(layout, mask), 1 * 32 + bias);
  // 16-byte sectors: the kept float sits in the second half of the row.
  EXPECT_EQ(kept_sector_bytes(layout, mask, 16), 1 * 16 + 3 * 16);
}

TEST(LayerMask, NormaliseDropsChannelsWithoutColumns) {
  LayerMask m = LayerMask::dense({2, 3, 2});
  m.keep_shape = {0, 0, 1, 0, 0, 1};
  m.normalise();
  EXPECT_EQ(m.keep_in, (std::vector<uint8_t>{0, 1, 1}));
}

TEST(ModelMask, BitsRoundTripAndLength) {
  auto layout = testing::tiny_layout();
  auto spec = SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.4));
  ModelMask a = node_mask(layout, spec, 11);
  // Bits of pruned layers only: layer1.conv1 16 + 8 + 72, layer1.conv2 12 + 16 + 16.
  EXPECT_EQ(a.bit_bytes(), size_t((16 + 8 + 72 + 12 + 16 + 16 + 7) / 8));
  auto bits = a.to_bits();
  ModelMask b(layout, spec);
  EXPECT_FALSE(a == b);
  b.from_bits(bits.data(), bits.size());
  EXPECT_TRUE(a == b);
  // Bit i of the buffer is keep_out[i] of the first pruned layer (LSB first).
  for (int i = 0; i < 16; ++i) EXPECT_EQ((bits[i / 8] >> (i % 8)) & 1, a[3].keep_out[i]) << i;
}

TEST(ModelMask, OrOfBitsIsTheUnionAndMatchesElementwiseSupport) {
  auto layout = testing::tiny_layout();
  for (SparsityKinds kinds : {SparsityKinds(kFilter), SparsityKinds(kChannel),
                              SparsityKinds(kShape), SparsityKinds(kFilter | kChannel | kShape)}) {
    auto spec = SparsitySpec::build(layout, kinds, KeepRate::of_fraction(0.3));
    std::vector<ModelMask> nodes;
    for (unsigned s = 0; s < 4; ++s) nodes.push_back(node_mask(layout, spec, 100 + s));
    // What one bitwise-OR all-reduce would produce.
    std::vector<uint8_t> reduced(nodes[0].bit_bytes(), 0);
    for (const auto& n : nodes) {
      auto bits = n.to_bits();
      for (size_t i = 0; i < bits.size(); ++i) reduced[i] |= bits[i];
    }
    ModelMask from_reduce(layout, spec);
    from_reduce.from_bits(reduced.data(), reduced.size());
    ModelMask united = nodes[0];
    for (size_t i = 1; i < nodes.size(); ++i) united.unite(nodes[i]);
    EXPECT_TRUE(united == from_reduce) << sparsity_kinds_name(kinds);

    // K_out / K_in of the element-wise union of the node supports (eq. 14 on elements).
    for (size_t l = 0; l < layout.layers.size(); ++l) {
      const LayerDims d = united[l].dims;
      std::vector<uint8_t> any_out(d.out, 0), any_in(d.in, 0);
      for (const auto& n : nodes) {
        auto e = elements(n[l]);
        for (int64_t o = 0; o < d.out; ++o)
          for (int64_t c = 0; c < d.in; ++c)
            for (int64_t p = 0; p < d.k; ++p)
              if (e[(o * d.in + c) * d.k + p] != 0) any_out[o] = any_in[c] = 1;
      }
      EXPECT_EQ(united[l].keep_out, any_out) << l;
      EXPECT_EQ(united[l].keep_in, any_in) << l;
      // The union's element set contains every node's support.
      auto u = elements(united[l]);
      for (const auto& n : nodes) {
        auto e = elements(n[l]);
        for (size_t i = 0; i < e.size(); ++i) EXPECT_TRUE(e[i] == 0 || u[i] != 0);
      }
    }
    EXPECT_GE(united.density(), nodes[0].density());
    EXPECT_LE(united.density(), 1.0);
  }
}

TEST(ModelMask, UnprunedLayersStayDenseAndTakeNoBits) {
  auto layout = testing::tiny_layout();
  auto spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5), {}, {"fc.weight"});
  ModelMask m(layout, spec);
  EXPECT_EQ(m.bit_bytes(), size_t((5 + 12 + 12 + 7) / 8));
  std::vector<uint8_t> zeros(m.bit_bytes(), 0);
  m.from_bits(zeros.data(), zeros.size());
  for (size_t l = 0; l + 2 < layout.layers.size(); ++l) EXPECT_TRUE(m[l].all_kept()) << l;
  EXPECT_EQ(m[5].kept_elements(), 0);
  EXPECT_EQ(m.total_elements(), layout.parameters());
}

}  // namespace
}  // namespace prunex
