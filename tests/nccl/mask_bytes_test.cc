// The one-byte-per-group mask form and the bit expansion behind ReduceOp::bor, checked on
// the host against ModelMask's own union and bit form and against a plain bitwise OR.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/nccl/mask_bytes.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

using testing::awkward_layout;
using testing::random_mask;

SparsitySpec channel_shape_spec(const ModelLayout& layout) {
  return SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
}

TEST(MaskBytes, LengthIsOneBytePerGroupOfPrunedLayers) {
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec = channel_shape_spec(layout);
  const ModelMask mask(layout, spec);
  std::size_t want = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l)
    if (spec.layers[l].pruned()) {
      const LayerDims d = layer_dims(layout.layers[l]);
      want += d.out + d.in + d.in * d.k;
    }
  EXPECT_GT(want, 0u);
  EXPECT_EQ(mask_group_bytes(mask), want);
  EXPECT_EQ(mask_to_group_bytes(mask).size(), want);
}

TEST(MaskBytes, RoundTripAndAgreementWithTheBitForm) {
  std::mt19937 rng(3);
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec = channel_shape_spec(layout);
  for (int trial = 0; trial < 20; ++trial) {
    const ModelMask mask = random_mask(layout, spec, 0.4, rng);
    const std::vector<uint8_t> bytes = mask_to_group_bytes(mask);
    ModelMask back(layout, spec);
    mask_from_group_bytes(back, bytes.data(), bytes.size());
    EXPECT_EQ(back, mask);
    // Packing the group bytes eight at a time gives ModelMask's bit form.
    std::vector<uint8_t> padded = bytes;
    padded.resize((bytes.size() + 7) / 8 * 8, 0);
    std::vector<uint8_t> bits(padded.size() / 8);
    pack_bits(padded.data(), bits.size(), bits.data());
    EXPECT_EQ(bits, mask.to_bits());
  }
}

// What the NCCL all-reduce computes: element-wise MAX of the ranks' byte buffers.
TEST(MaskBytes, MaxOfGroupBytesIsTheMaskUnion) {
  std::mt19937 rng(5);
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec = channel_shape_spec(layout);
  for (int ranks : {2, 3, 8}) {
    std::vector<ModelMask> masks;
    for (int r = 0; r < ranks; ++r) masks.push_back(random_mask(layout, spec, 0.3, rng));
    std::vector<uint8_t> reduced = mask_to_group_bytes(masks[0]);
    ModelMask want = masks[0];
    for (int r = 1; r < ranks; ++r) {
      const auto b = mask_to_group_bytes(masks[r]);
      for (size_t i = 0; i < b.size(); ++i) reduced[i] = std::max(reduced[i], b[i]);
      want.unite(masks[r]);
    }
    for (auto& m : want.layers()) m.normalise();
    ModelMask got(layout, spec);
    mask_from_group_bytes(got, reduced.data(), reduced.size());
    EXPECT_EQ(got, want) << ranks << " ranks";
  }
}

TEST(MaskBytes, WrongLengthIsRejected) {
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec = channel_shape_spec(layout);
  ModelMask mask(layout, spec);
  std::vector<uint8_t> bytes(mask_group_bytes(mask) - 1, 1);
  EXPECT_THROW(mask_from_group_bytes(mask, bytes.data(), bytes.size()), std::logic_error);
}

TEST(BitExpansion, LsbFirstOneBytePerBit) {
  const uint8_t in[2] = {0x01, 0xA4};  // 1010 0100
  uint8_t out[16];
  expand_bits(in, 2, out);
  const uint8_t want[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1};
  EXPECT_TRUE(std::equal(out, out + 16, want));
}

// expand -> element-wise MAX over ranks -> pack is a bitwise OR, for any bytes.
TEST(BitExpansion, ExpandMaxPackIsBitwiseOr) {
  std::mt19937 rng(7);
  for (std::size_t n : {1u, 7u, 8u, 1001u}) {
    for (int ranks : {2, 5}) {
      std::vector<std::vector<uint8_t>> data(ranks, std::vector<uint8_t>(n));
      for (auto& d : data)
        for (auto& b : d) b = static_cast<uint8_t>(rng());
      std::vector<uint8_t> want(n, 0), reduced(8 * n, 0), tmp(8 * n);
      for (const auto& d : data) {
        for (std::size_t i = 0; i < n; ++i) want[i] |= d[i];
        expand_bits(d.data(), n, tmp.data());
        for (std::size_t i = 0; i < 8 * n; ++i) reduced[i] = std::max(reduced[i], tmp[i]);
      }
      std::vector<uint8_t> got(n);
      pack_bits(reduced.data(), n, got.data());
      EXPECT_EQ(got, want) << "n=" << n << " ranks=" << ranks;
    }
  }
}

}  // namespace
}  // namespace prunex
