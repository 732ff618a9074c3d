// Host-side planning of the fused GPU pack/unpack: the tiles cover every element once, and
// walking the tables with the kernels' own index functions (pack_source, unpack_source, the
// same code the device runs) reproduces engine/compaction's CPU pack and unpack bit for bit.
// Runs without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cuda/compaction_tables.h"
#include "engine/compaction.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

using testing::awkward_layout;
using testing::pointers;
using testing::random_mask;
using testing::random_model;

// The pack kernel's loop, run on the host.
std::vector<float> host_pack(const CompactionTables& t, const std::vector<const float*>& z,
                             const std::vector<const float*>* v) {
  std::vector<float> stream(t.compact_floats, std::numeric_limits<float>::quiet_NaN());
  for (const GpuTile& tile : t.pack_tiles) {
    const GpuLayerDesc& d = t.layers[tile.layer];
    for (int64_t e = tile.begin; e < tile.end; ++e) {
      const int64_t src = pack_source(d, t.index.data(), e);
      stream[d.stream_offset + e] =
          v ? z[tile.layer][src] + (*v)[tile.layer][src] : z[tile.layer][src];
    }
  }
  return stream;
}

void host_unpack(const CompactionTables& t, const std::vector<float>& stream,
                 const std::vector<float*>& out, float scale) {
  for (const GpuTile& tile : t.unpack_tiles) {
    const GpuLayerDesc& d = t.layers[tile.layer];
    for (int64_t i = tile.begin; i < tile.end; ++i) {
      const int64_t s = unpack_source(d, t.index.data(), i);
      out[tile.layer][i] = s < 0 ? 0.0f : stream[s] * scale;
    }
  }
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void check_against_cpu(const ModelLayout& layout, const ModelMask& mask, int64_t bucket_bytes,
                       int64_t tile, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "bucket_bytes=" << bucket_bytes << " tile=" << tile);
  const CompactionPlan plan(layout, mask, bucket_bytes);
  const CompactionTables t = plan_compaction_tables(plan, tile);
  ASSERT_EQ(t.layers.size(), layout.layers.size());
  ASSERT_EQ(t.compact_floats, plan.compact_floats());

  // Tiles: within their layer, no longer than `tile`, covering each layer's elements in order.
  std::vector<int64_t> pack_next(t.layers.size(), 0), unpack_next(t.layers.size(), 0);
  for (const GpuTile& x : t.pack_tiles) {
    ASSERT_EQ(x.begin, pack_next[x.layer]);
    ASSERT_GT(x.end, x.begin);
    ASSERT_LE(x.end - x.begin, tile);
    pack_next[x.layer] = x.end;
  }
  for (const GpuTile& x : t.unpack_tiles) {
    ASSERT_EQ(x.begin, unpack_next[x.layer]);
    ASSERT_LE(x.end - x.begin, tile);
    unpack_next[x.layer] = x.end;
  }
  for (size_t l = 0; l < t.layers.size(); ++l) {
    EXPECT_EQ(pack_next[l], plan.layers()[l].compact_numel) << "layer " << l;
    EXPECT_EQ(unpack_next[l], layout.layers[l].numel()) << "layer " << l;
  }

  auto z = random_model(layout, rng), v = random_model(layout, rng);
  const auto zp = pointers(z), vp = pointers(v);
  const std::vector<const float*> zc(zp.begin(), zp.end()), vc(vp.begin(), vp.end());
  for (bool with_v : {false, true}) {
    BucketSet buckets(plan);
    pack(plan, zc.data(), with_v ? vc.data() : nullptr, buckets.data());
    const std::vector<float> stream = host_pack(t, zc, with_v ? &vc : nullptr);
    int64_t pos = 0;
    for (int b = 0; b < buckets.size(); ++b)
      for (int64_t i = 0; i < buckets.values(b); ++i, ++pos)
        ASSERT_TRUE(same_bits(stream[pos], buckets.bucket(b)[i]))
            << "bucket " << b << " float " << i << ": " << stream[pos] << " vs "
            << buckets.bucket(b)[i];
    ASSERT_EQ(pos, t.compact_floats);

    for (float scale : {1.0f, 0.25f, 1.0f / 3.0f}) {
      std::vector<std::vector<float>> want(layout.layers.size()), got(layout.layers.size());
      for (size_t l = 0; l < want.size(); ++l) {
        want[l].assign(layout.layers[l].numel(), std::nanf(""));
        got[l].assign(layout.layers[l].numel(), std::nanf(""));
      }
      auto wp = pointers(want), gp = pointers(got);
      unpack(plan, buckets.data(), wp.data(), scale);
      host_unpack(t, stream, gp, scale);
      for (size_t l = 0; l < want.size(); ++l)
        for (size_t i = 0; i < want[l].size(); ++i)
          ASSERT_TRUE(same_bits(got[l][i], want[l][i]))
              << "layer " << l << " element " << i << ": " << got[l][i] << " vs " << want[l][i];
    }
  }
}

TEST(CompactionTables, MatchCpuPackUnpackOnAwkwardShapes) {
  std::mt19937 rng(11);
  const ModelLayout layout = awkward_layout();
  for (SparsityKinds kinds :
       {unsigned(kChannel), kFilter | kChannel, kFilter | kChannel | kShape}) {
    const SparsitySpec spec = SparsitySpec::build(layout, kinds, KeepRate::of_fraction(0.5));
    for (double p : {0.15, 0.5, 0.9}) {
      const ModelMask mask = random_mask(layout, spec, p, rng);
      // Buckets of 1 float, of an odd size that cuts layers mid-row, and the default.
      for (int64_t bucket_bytes : {int64_t(4), int64_t(4 * 97), kDefaultBucketBytes})
        for (int64_t tile : {int64_t(1), int64_t(33), kCompactionTileElems})
          check_against_cpu(layout, mask, bucket_bytes, tile, rng);
    }
  }
}

TEST(CompactionTables, DenseMaskIsWholeLayers) {
  std::mt19937 rng(12);
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(1.0));
  const ModelMask mask(layout, spec);
  const CompactionTables t = plan_compaction_tables(CompactionPlan(layout, mask));
  for (const auto& d : t.layers) EXPECT_EQ(d.whole, 1);
  EXPECT_TRUE(t.index.empty());
  EXPECT_EQ(t.compact_floats, t.dense_floats);
  check_against_cpu(layout, mask, 4 * 1000, 512, rng);
}

TEST(CompactionTables, InverseMapsAreInverses) {
  std::mt19937 rng(13);
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel, KeepRate::of_fraction(0.5));
  const ModelMask mask = random_mask(layout, spec, 0.5, rng);
  const CompactionTables t = plan_compaction_tables(CompactionPlan(layout, mask));
  for (size_t l = 0; l < t.layers.size(); ++l) {
    const GpuLayerDesc& d = t.layers[l];
    if (d.whole) continue;
    const LayerMask& m = mask[l];
    const int64_t kept_rows = std::count(m.keep_out.begin(), m.keep_out.end(), 1);
    for (int64_t r = 0; r < kept_rows; ++r)
      EXPECT_EQ(t.index[d.rank_at + t.index[d.k_out_at + r]], r);
    for (int32_t j = 0; j < d.crow; ++j) EXPECT_EQ(t.index[d.slot_at + t.index[d.cols_at + j]], j);
    int64_t kept_slots = 0;
    for (int32_t j = 0; j < d.row; ++j) kept_slots += t.index[d.slot_at + j] >= 0;
    EXPECT_EQ(kept_slots, d.crow);
  }
}

// The kernels index inside a layer in 32 bits; a layer of 2^31 elements must be refused.
TEST(CompactionTables, HugeLayerIsRefused) {
  ModelLayout layout;
  layout.model = "huge";
  layout.layers = {testing::fc("fc.weight", int64_t(1) << 16, int64_t(1) << 15)};
  const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(1.0));
  const ModelMask mask(layout, spec);
  EXPECT_THROW(plan_compaction_tables(CompactionPlan(layout, mask)), std::logic_error);
}

}  // namespace
}  // namespace prunex
