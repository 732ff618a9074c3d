// pack/unpack against a direct reference: the compact stream is built here with plain loops
// over the mask vectors, cut into buckets of the requested size, and compared float by float.
#include "engine/compaction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/compaction_simd.h"
#include "engine/error.h"
#include "engine/projection.h"
#include "tests/engine/sparsity_fixtures.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

struct Model {
  ModelLayout layout;
  std::vector<std::vector<float>> z, v;
  std::vector<const float*> zp, vp;
};

Model make_model(ModelLayout layout, unsigned seed) {
  Model m;
  m.layout = std::move(layout);
  std::mt19937 rng(seed);
  for (const auto& l : m.layout.layers) {
    m.z.push_back(testing::random_tensor(l.numel(), rng));
    m.v.push_back(testing::random_tensor(l.numel(), rng));
  }
  for (size_t l = 0; l < m.z.size(); ++l) {
    m.zp.push_back(m.z[l].data());
    m.vp.push_back(m.v[l].data());
  }
  return m;
}

// Random mask: each filter/channel kept with probability p (at least one of each).
ModelMask random_mask(const ModelLayout& layout, double p, unsigned seed) {
  auto spec = SparsitySpec::build(layout, kFilter | kChannel, KeepRate::of_fraction(1.0));
  ModelMask mask(layout, spec);
  std::mt19937 rng(seed);
  std::bernoulli_distribution keep(p);
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    if (!spec.layers[l].pruned()) continue;
    auto& m = mask[l];
    for (auto& b : m.keep_out) b = keep(rng);
    for (auto& b : m.keep_in) b = keep(rng);
    m.keep_out[rng() % m.keep_out.size()] = 1;
    m.keep_in[rng() % m.keep_in.size()] = 1;
  }
  return mask;
}

// The expected stream: z + v (or z) over K_out x K_in x k, layer after layer.
std::vector<float> reference_stream(const Model& m, const ModelMask& mask, bool with_v) {
  std::vector<float> s;
  for (size_t l = 0; l < m.layout.layers.size(); ++l) {
    const LayerMask& lm = mask[l];
    const LayerDims d = lm.dims;
    for (int64_t o = 0; o < d.out; ++o) {
      if (!lm.keep_out[o]) continue;
      for (int64_t c = 0; c < d.in; ++c) {
        if (!lm.keep_in[c]) continue;
        for (int64_t p = 0; p < d.k; ++p) {
          const int64_t i = (o * d.in + c) * d.k + p;
          s.push_back(with_v ? m.z[l][i] + m.v[l][i] : m.z[l][i]);
        }
      }
    }
  }
  return s;
}

// Packs, compares every bucket with the reference cut, unpacks into NaN-filled tensors and
// compares with the expansion (zeros outside K_out x K_in).
void check_round_trip_once(const Model& m, const ModelMask& mask, int64_t bucket_bytes, bool with_v,
                           float scale) {
  SCOPED_TRACE(::testing::Message() << "bucket_bytes=" << bucket_bytes << " v=" << with_v
                                    << " simd=" << detail::compaction_simd_enabled());
  CompactionPlan plan(m.layout, mask, bucket_bytes);
  auto ref = reference_stream(m, mask, with_v);
  ASSERT_EQ(plan.compact_floats(), int64_t(ref.size()));
  EXPECT_EQ(plan.dense_floats(), m.layout.parameters());
  const int64_t cap = bucket_bytes / 4;
  ASSERT_EQ(plan.buckets(), int((int64_t(ref.size()) + cap - 1) / cap));

  BucketSet buckets(plan);
  for (int b = 0; b < buckets.size(); ++b) std::fill_n(buckets.bucket(b), buckets.values(b), -7.0f);
  pack(plan, m.zp.data(), with_v ? m.vp.data() : nullptr, buckets.data());
  for (int b = 0; b < plan.buckets(); ++b) {
    ASSERT_EQ(buckets.values(b), std::min<int64_t>(cap, int64_t(ref.size()) - b * cap));
    for (int64_t i = 0; i < buckets.values(b); ++i)
      ASSERT_EQ(buckets.bucket(b)[i], ref[b * cap + i]) << "bucket " << b << " at " << i;
  }

  std::vector<std::vector<float>> out;
  std::vector<float*> op;
  for (const auto& l : m.layout.layers)
    out.emplace_back(l.numel(), std::numeric_limits<float>::quiet_NaN());
  for (auto& t : out) op.push_back(t.data());
  unpack(plan, buckets.data(), op.data(), scale);
  for (size_t l = 0; l < out.size(); ++l) {
    const LayerMask& lm = mask[l];
    const LayerDims d = lm.dims;
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t c = 0; c < d.in; ++c)
        for (int64_t p = 0; p < d.k; ++p) {
          const int64_t i = (o * d.in + c) * d.k + p;
          const float full = with_v ? m.z[l][i] + m.v[l][i] : m.z[l][i];
          const float want = lm.keep_out[o] && lm.keep_in[c] ? full * scale : 0.0f;
          ASSERT_EQ(out[l][i], want) << "layer " << l << " at " << o << "," << c << "," << p;
        }
  }
}

// Both the portable row code and, where the CPU has AVX-512, the vector kernels.
void check_round_trip(const Model& m, const ModelMask& mask, int64_t bucket_bytes, bool with_v,
                      float scale = 1.0f) {
  const bool had = detail::set_compaction_simd(false);
  check_round_trip_once(m, mask, bucket_bytes, with_v, scale);
  if (detail::set_compaction_simd(true), detail::compaction_simd_enabled())
    check_round_trip_once(m, mask, bucket_bytes, with_v, scale);
  detail::set_compaction_simd(had);
}

TEST(Compaction, RoundTripOverBucketSizes) {
  auto m = make_model(testing::tiny_layout(), 1);
  auto mask = random_mask(m.layout, 0.5, 2);
  for (int64_t bytes : {4, 8, 36, 100, 1000, 4096, 1 << 20})
    for (bool with_v : {true, false}) check_round_trip(m, mask, bytes, with_v);
  check_round_trip(m, mask, 256, true, 0.25f);
}

TEST(Compaction, KeepAllIsTheWholeModel) {
  auto m = make_model(testing::tiny_layout(), 3);
  auto spec = SparsitySpec::build(m.layout, kChannel, KeepRate::of_fraction(1.0));
  ModelMask mask(m.layout, spec);
  CompactionPlan plan(m.layout, mask, 512);
  EXPECT_EQ(plan.compact_floats(), m.layout.parameters());
  for (const auto& c : plan.layers()) EXPECT_TRUE(c.whole);
  check_round_trip(m, mask, 512, true);
}

TEST(Compaction, KeepOneFilterAndChannel) {
  auto m = make_model(testing::tiny_layout(), 4);
  auto mask = random_mask(m.layout, 0.0, 5);  // exactly the one forced filter and channel
  CompactionPlan plan(m.layout, mask, 64);
  EXPECT_EQ(plan.layers()[3].compact_shape, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(plan.layers()[4].compact_shape, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(plan.layers()[5].compact_shape, (std::vector<int64_t>{5, 12}));
  check_round_trip(m, mask, 64, true);
  check_round_trip(m, mask, 4, true);
}

TEST(Compaction, LayerLargerThanABucketAndCutsAtLayerEnds) {
  ModelLayout layout;
  layout.model = "big";
  layout.layers = {testing::conv("stem.weight", 4, 3, 3, 3),
                   testing::conv("a.weight", 64, 48, 3, 3), testing::conv("b.weight", 96, 64, 1, 1),
                   testing::fc("fc.weight", 10, 96), testing::vec("fc.bias", 10, LayerRole::bias)};
  auto m = make_model(layout, 6);
  auto mask = random_mask(layout, 0.6, 7);
  CompactionPlan probe(layout, mask, 1 << 30);
  // A bucket smaller than layer a's compact size, so a spans several buckets.
  const int64_t a = probe.layers()[1].compact_numel;
  ASSERT_GT(a, 1000);
  check_round_trip(m, mask, (a / 3) * 4, true);
  // A bucket that ends exactly where layer a ends (stem + a), so b starts a new bucket.
  const int64_t cut = probe.layers()[2].stream_offset;
  CompactionPlan exact(layout, mask, cut * 4);
  EXPECT_EQ(exact.layers()[2].bucket, 1);
  EXPECT_EQ(exact.layers()[2].offset, 0);
  check_round_trip(m, mask, cut * 4, true);
  // Buckets that cut inside rows of every layer, odd sizes.
  for (int64_t floats : {7, 13, 97, 1001}) check_round_trip(m, mask, floats * 4, true);
}

// The vector unpack loads 16 compact floats at a time only while 16 remain in the layer's
// slice and finishes with a kernel that reads only the floats it needs: layers whose last
// filters are pruned (a long run of zeros after the last compact float), sparse and dense
// masks, checked against the brute-force expansion.
TEST(Compaction, VectorUnpackAtEveryDensityAndPrunedTails) {
  ModelLayout layout;
  layout.model = "tails";
  layout.layers = {testing::conv("stem.weight", 4, 3, 3, 3),
                   testing::conv("a.weight", 64, 48, 3, 3), testing::conv("b.weight", 96, 64, 1, 1),
                   testing::fc("fc.weight", 10, 96)};
  auto m = make_model(layout, 21);
  for (double p : {0.05, 0.3, 0.5, 0.9}) {
    SCOPED_TRACE(::testing::Message() << "p=" << p);
    auto mask = random_mask(layout, p, 22);
    check_round_trip(m, mask, 1 << 20, true);
    for (size_t l = 1; l < 3; ++l) {  // keep only the first quarter of a's and b's filters
      auto& out = mask[l].keep_out;
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(out.size() / 4), out.end(), 0);
      out[0] = 1;
    }
    check_round_trip(m, mask, 1 << 20, true, 0.5f);
  }
}

TEST(Compaction, GatherAndRunPathsBothExercised) {
  ModelLayout layout;
  layout.model = "paths";
  layout.layers = {testing::conv("stem.weight", 4, 3, 3, 3),
                   testing::conv("pw.weight", 32, 64, 1, 1),
                   testing::conv("k3.weight", 32, 64, 3, 3)};
  auto m = make_model(layout, 8);
  auto spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(1.0));
  ModelMask mask(layout, spec);
  // pw: alternate channels (runs of 1 float -> gather); k3: two long blocks (-> runs).
  for (int c = 0; c < 64; ++c) mask[1].keep_in[c] = c % 2;
  for (int c = 0; c < 64; ++c) mask[2].keep_in[c] = (c < 20 || c >= 40) ? 1 : 0;
  CompactionPlan plan(layout, mask, 1 << 20);
  EXPECT_TRUE(plan.layers()[1].gather);
  EXPECT_FALSE(plan.layers()[2].gather);
  EXPECT_EQ(plan.layers()[2].runs.size(), 2u);
  for (int64_t bytes : {1 << 20, 4 * 37, 4 * 32}) check_round_trip(m, mask, bytes, true);
}

// Buckets owned by someone else need not start on a cache line: pack must still write the
// same stream (the vector kernel then takes its unaligned path).
TEST(Compaction, UnalignedBucketsFromElsewhere) {
  auto m = make_model(testing::tiny_layout(), 13);
  auto mask = random_mask(m.layout, 0.5, 14);
  for (int64_t bytes : {1 << 20, 4 * 300}) {
    CompactionPlan plan(m.layout, mask, bytes);
    auto ref = reference_stream(m, mask, true);
    std::vector<std::vector<float>> storage;
    std::vector<float*> ptrs;
    for (int b = 0; b < plan.buckets(); ++b) storage.emplace_back(plan.bucket_floats(b) + 1, -3.0f);
    for (auto& s : storage) ptrs.push_back(s.data() + 1);  // 4 bytes past the allocation
    for (bool simd : {false, true}) {
      const bool had = detail::set_compaction_simd(simd);
      pack(plan, m.zp.data(), m.vp.data(), ptrs.data());
      detail::set_compaction_simd(had);
      for (int b = 0; b < plan.buckets(); ++b) {
        for (int64_t i = 0; i < plan.bucket_floats(b); ++i)
          ASSERT_EQ(ptrs[b][i], ref[b * plan.bucket_capacity() + i]) << b << " " << i;
        EXPECT_EQ(storage[b][0], -3.0f);  // nothing written before the bucket
      }
    }
  }
}

TEST(Compaction, VectorKernelsCoverLayersInsideOneBucket) {
  auto layout = testing::tiny_layout();
  auto mask = random_mask(layout, 0.5, 12);
  CompactionPlan big(layout, mask, 1 << 20);
  EXPECT_FALSE(big.layers()[3].flat_bits.empty());  // pruned, inside bucket 0
  EXPECT_TRUE(big.layers()[1].flat_bits.empty());   // whole: a plain copy
  CompactionPlan tiny(layout, mask, 16);
  for (const auto& c : tiny.layers())
    if (c.offset + c.compact_numel > 4) {
      EXPECT_TRUE(c.flat_bits.empty());
    }
  std::printf("AVX-512 kernels %s on this CPU\n",
              detail::compaction_simd_enabled() ? "used" : "not available");
}

TEST(Compaction, PlanIsDeterministicAndSized) {
  auto layout = testing::tiny_layout();
  auto a = random_mask(layout, 0.5, 9);
  auto b = random_mask(layout, 0.5, 9);
  auto c = random_mask(layout, 0.5, 10);
  CompactionPlan pa(layout, a, 1000), pb(layout, b, 1000), pc(layout, c, 1000);
  EXPECT_EQ(pa.fingerprint(), pb.fingerprint());
  EXPECT_NE(pa.fingerprint(), pc.fingerprint());
  EXPECT_NE(pa.fingerprint(), CompactionPlan(layout, a, 2000).fingerprint());
  int64_t sum = 0;
  for (int i = 0; i < pa.buckets(); ++i) sum += pa.bucket_floats(i);
  EXPECT_EQ(sum, pa.compact_floats());
  // Compact bytes = sum over layers of |K_out| * |K_in| * k.
  int64_t expect = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l)
    expect += int64_t(a[l].k_out().size() * a[l].k_in().size()) * a[l].dims.k;
  EXPECT_EQ(pa.compact_bytes(), 4 * expect);
  EXPECT_EQ(CompactionPlan(layout, a).bucket_capacity(), kDefaultBucketBytes / 4);
  EXPECT_THROW((void)CompactionPlan(layout, a, 3), UsageError);
}

}  // namespace
}  // namespace prunex

namespace prunex {
namespace {

// The bench's model: channel 0.5 on ResNet-152 keeps round(in / 2) channels of every conv
// but the stem, all filters, and every other tensor whole.
TEST(Compaction, Resnet152ChannelHalfSizes) {
  const ModelLayout layout = make_layout("resnet152", 10);
  const auto spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5));
  int convs = 0;
  int64_t expect = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const auto& s = layout.layers[l].shape;
    if (layout.layers[l].is_conv()) ++convs;
    if (spec.layers[l].pruned())
      expect += s[0] * ((s[1] + 1) / 2) * s[2] * s[3];  // round half up of in / 2
    else
      expect += layout.layers[l].numel();
  }
  EXPECT_EQ(convs, 155);
  EXPECT_EQ(spec.pruned_layers(), 154);
  EXPECT_FALSE(spec.layers[layout.find("conv1.weight")].pruned());

  std::mt19937 rng(21);
  std::vector<std::vector<float>> w;
  std::vector<float*> ptrs;
  for (const auto& l : layout.layers) w.push_back(testing::random_tensor(l.numel(), rng));
  for (auto& t : w) ptrs.push_back(t.data());
  const ModelMask mask = project_model(ptrs.data(), layout, spec);
  const CompactionPlan plan(layout, mask);
  EXPECT_EQ(plan.compact_floats(), expect);
  EXPECT_EQ(plan.dense_floats(), layout.parameters());
  EXPECT_EQ(plan.buckets(), int((expect * 4 + kDefaultBucketBytes - 1) / kDefaultBucketBytes));
}

}  // namespace
}  // namespace prunex
