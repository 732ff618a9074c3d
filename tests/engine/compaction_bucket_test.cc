// Per-bucket pack / unpack (pipelined buckets) against the whole-plan calls, on small_cnn with
// random channel masks and buckets that cut layers: the same bucket contents, and the same
// output when the buckets are unpacked one at a time in reverse order over garbage, in fp32
// and in both 16-bit wire types.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/compaction.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

struct Fixture {
  ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  std::vector<std::vector<float>> z, v;
  std::vector<const float*> zp, vp;
  ModelMask mask;
  Fixture() {
    const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5));
    mask = ModelMask(layout, spec);
    std::mt19937 rng(11);
    for (size_t l = 0; l < mask.size(); ++l)
      if (mask.pruned(l))
        for (size_t c = 1; c < mask[l].keep_in.size(); ++c) mask[l].keep_in[c] = rng() % 2;
    std::normal_distribution<float> normal(0, 1);
    for (const auto& L : layout.layers) {
      z.emplace_back();
      v.emplace_back();
      for (int64_t i = 0; i < L.numel(); ++i) {
        z.back().push_back(normal(rng));
        v.back().push_back(normal(rng));
      }
    }
    for (size_t l = 0; l < z.size(); ++l) {
      zp.push_back(z[l].data());
      vp.push_back(v[l].data());
    }
  }
  std::vector<std::vector<float>> garbage() const {
    std::vector<std::vector<float>> o;
    for (const auto& x : z) o.emplace_back(x.size(), 12345.f);
    return o;
  }
};

std::vector<float*> ptrs(std::vector<std::vector<float>>& o) {
  std::vector<float*> p;
  for (auto& x : o) p.push_back(x.data());
  return p;
}

TEST(CompactionBucket, Fp32EqualsWholePlan) {
  Fixture f;
  const CompactionPlan plan(f.layout, f.mask, 16 << 10);
  ASSERT_GE(plan.buckets(), 4);
  BucketSet whole(plan), each(plan);
  pack(plan, f.zp.data(), f.vp.data(), whole.data());
  for (int b = 0; b < plan.buckets(); ++b)
    pack_bucket(plan, f.zp.data(), f.vp.data(), each.bucket(b), b);
  for (int b = 0; b < plan.buckets(); ++b)
    for (int64_t i = 0; i < plan.bucket_floats(b); ++i)
      ASSERT_EQ(whole.bucket(b)[i], each.bucket(b)[i]) << b << ":" << i;
  auto a = f.garbage(), c = f.garbage();
  auto ap = ptrs(a), cp = ptrs(c);
  unpack(plan, whole.data(), ap.data(), 0.5f);
  for (int b = plan.buckets() - 1; b >= 0; --b)
    unpack_bucket(plan, whole.bucket(b), cp.data(), 0.5f, b);
  for (size_t l = 0; l < a.size(); ++l) ASSERT_EQ(a[l], c[l]) << f.layout.layers[l].name;
}

TEST(CompactionBucket, WireEqualsWholePlan) {
  Fixture f;
  const CompactionPlan plan(f.layout, f.mask, 16 << 10);
  for (DType w : {DType::bf16, DType::f16}) {
    WireBucketSet whole(plan), each(plan);
    pack_wire(plan, w, f.zp.data(), f.vp.data(), whole.data());
    for (int b = 0; b < plan.buckets(); ++b)
      pack_wire_bucket(plan, w, f.zp.data(), f.vp.data(), each.bucket(b), b);
    for (int b = 0; b < plan.buckets(); ++b)
      for (int64_t i = 0; i < plan.bucket_floats(b); ++i)
        ASSERT_EQ(whole.bucket(b)[i], each.bucket(b)[i]) << b << ":" << i;
    auto a = f.garbage(), c = f.garbage();
    auto ap = ptrs(a), cp = ptrs(c);
    unpack_wire(plan, w, whole.data(), ap.data(), 0.25f);
    for (int b = plan.buckets() - 1; b >= 0; --b)
      unpack_wire_bucket(plan, w, whole.bucket(b), cp.data(), 0.25f, b);
    for (size_t l = 0; l < a.size(); ++l) ASSERT_EQ(a[l], c[l]) << f.layout.layers[l].name;
  }
}

}  // namespace
}  // namespace prunex
