#include "engine/sparsity_spec.h"

#include <gtest/gtest.h>

#include "engine/error.h"
#include "tests/engine/sparsity_fixtures.h"

namespace prunex {
namespace {

TEST(SparsityKinds, ParsesCompositionsInAnyOrder) {
  EXPECT_EQ(parse_sparsity_kinds("filter"), kFilter);
  EXPECT_EQ(parse_sparsity_kinds("channel"), kChannel);
  EXPECT_EQ(parse_sparsity_kinds("shape"), kShape);
  EXPECT_EQ(parse_sparsity_kinds("filter+channel"), kFilter | kChannel);
  EXPECT_EQ(parse_sparsity_kinds("channel+filter"), kFilter | kChannel);
  EXPECT_EQ(parse_sparsity_kinds("shape+filter+channel"), 7u);
  EXPECT_EQ(parse_sparsity_kinds("none"), 0u);
  EXPECT_EQ(sparsity_kinds_name(kChannel | kFilter), "filter+channel");
  EXPECT_EQ(sparsity_kinds_name(0), "none");
}

TEST(SparsityKinds, RejectsBadNames) {
  for (const char* bad :
       {"", "channels", "filter+", "+filter", "filter+filter", "FILTER", "filter++shape"})
    EXPECT_THROW(parse_sparsity_kinds(bad), UsageError) << bad;
}

TEST(KeepRate, FractionRoundsHalfUpWithMinimumOne) {
  auto r = KeepRate::parse("0.5");
  EXPECT_FALSE(r.is_count);
  EXPECT_EQ(r.kept(64), 32);
  EXPECT_EQ(r.kept(3), 2);  // 1.5 rounds up
  EXPECT_EQ(r.kept(1), 1);  // 0.5 rounds up
  EXPECT_EQ(KeepRate::parse("0.3").kept(10), 3);
  EXPECT_EQ(KeepRate::parse("0.01").kept(10), 1);  // at least one group
  EXPECT_EQ(KeepRate::parse("1").kept(7), 7);
  EXPECT_EQ(KeepRate::parse("0.25").kept(6), 2);  // 1.5 -> 2
}

TEST(KeepRate, CountsAndErrors) {
  auto c = KeepRate::parse("32");
  EXPECT_TRUE(c.is_count);
  EXPECT_EQ(c.kept(64), 32);
  EXPECT_THROW(c.kept(31), UsageError);
  for (const char* bad : {"0", "-0.5", "1.5", "abc", "", "nan", "inf", "2.5", "0.5x"})
    EXPECT_THROW(KeepRate::parse(bad), UsageError) << bad;
  EXPECT_THROW(KeepRate::of_fraction(0.0), UsageError);
  EXPECT_THROW(KeepRate::of_fraction(1.01), UsageError);
  EXPECT_THROW(KeepRate::of_count(0), UsageError);
}

TEST(LayerDims, ViewsShapesAsOutInK) {
  auto l = testing::tiny_layout();
  auto d = layer_dims(l.layers[3]);
  EXPECT_EQ(d.out, 16);
  EXPECT_EQ(d.in, 8);
  EXPECT_EQ(d.k, 9);
  d = layer_dims(l.layers[5]);
  EXPECT_EQ(d.out, 5);
  EXPECT_EQ(d.in, 12);
  EXPECT_EQ(d.k, 1);
  d = layer_dims(l.layers[1]);
  EXPECT_EQ(d.out, 8);
  EXPECT_EQ(d.in, 1);
  EXPECT_EQ(d.k, 1);
}

TEST(SparsitySpec, DefaultPrunesConvsExceptTheFirst) {
  auto l = testing::tiny_layout();
  auto s = SparsitySpec::build(l, kChannel, KeepRate::of_fraction(0.5));
  ASSERT_EQ(s.layers.size(), l.layers.size());
  std::vector<bool> expect = {false, false, false, true, true, false, false};
  for (size_t i = 0; i < expect.size(); ++i) EXPECT_EQ(s.layers[i].pruned(), expect[i]) << i;
  EXPECT_EQ(s.pruned_layers(), 2);
  EXPECT_EQ(s.layers[3].kinds, kChannel);
}

TEST(SparsitySpec, OverridesAndExplicitLayerSet) {
  auto l = testing::tiny_layout();
  auto s = SparsitySpec::build(l, kFilter, KeepRate::of_fraction(0.5),
                               {{"layer1.conv2.weight", KeepRate::of_count(3)}},
                               {"layer1.conv2.weight", "fc.weight"});
  EXPECT_FALSE(s.layers[3].pruned());
  EXPECT_TRUE(s.layers[4].pruned());
  EXPECT_TRUE(s.layers[5].pruned());
  EXPECT_TRUE(s.layers[4].keep.is_count);
  EXPECT_EQ(s.layers[4].keep.count, 3);
  EXPECT_FALSE(s.layers[5].keep.is_count);
}

TEST(SparsitySpec, RejectsBadLayersAndCounts) {
  auto l = testing::tiny_layout();
  auto half = KeepRate::of_fraction(0.5);
  EXPECT_THROW(SparsitySpec::build(l, kFilter, half, {}, {"nope"}), UsageError);
  EXPECT_THROW(SparsitySpec::build(l, kFilter, half, {}, {"bn1.weight"}), UsageError);
  EXPECT_THROW(SparsitySpec::build(l, kFilter, half, {{"nope", half}}), UsageError);
  EXPECT_THROW(SparsitySpec::build(l, kFilter, half, {{"conv1.weight", half}}), UsageError);
  // layer1.conv1 has 8 input channels: a count of 9 channels cannot be kept.
  EXPECT_THROW(SparsitySpec::build(l, kChannel, KeepRate::of_count(9)), UsageError);
  // ...but 9 filters of its 16 and of layer1.conv2's 12 can.
  EXPECT_NO_THROW(SparsitySpec::build(l, kFilter, KeepRate::of_count(9)));
  // shape groups: 8 * 9 = 72 and 16 * 1 = 16.
  EXPECT_THROW(SparsitySpec::build(l, kShape, KeepRate::of_count(17)), UsageError);
}

}  // namespace
}  // namespace prunex
