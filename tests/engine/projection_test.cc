// Projections against brute force: over every subset of `keep` groups, the masked tensor
// closest to W in Frobenius norm. Norms of random normal tensors are distinct almost surely,
// so the optimal subset is unique and the supports must agree.
#include "engine/projection.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "tests/engine/sparsity_fixtures.h"

namespace prunex {
namespace {

using Pick = std::function<bool(int64_t o, int64_t c, int64_t p, const std::vector<int>& keep)>;

// Every subset of size `keep` of `groups` items, as 0/1 vectors.
void for_each_subset(int groups, int keep, const std::function<void(const std::vector<int>&)>& f) {
  for (uint32_t bits = 0; bits < (1u << groups); ++bits) {
    if (__builtin_popcount(bits) != keep) continue;
    std::vector<int> s(groups);
    for (int g = 0; g < groups; ++g) s[g] = (bits >> g) & 1u;
    f(s);
  }
}

// Brute-force projection: the masked copy of w, over all subsets, with least ||w - P||^2.
std::vector<float> brute_force(const std::vector<float>& w, const LayerDims& d, int groups,
                               int keep, const Pick& kept, double* best_obj) {
  double best = 1e300;
  std::vector<float> best_p;
  for_each_subset(groups, keep, [&](const std::vector<int>& s) {
    std::vector<float> p(w.size(), 0.0f);
    double obj = 0;
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t c = 0; c < d.in; ++c)
        for (int64_t q = 0; q < d.k; ++q) {
          const int64_t i = (o * d.in + c) * d.k + q;
          if (kept(o, c, q, s)) p[i] = w[i];
          obj += double(w[i] - p[i]) * double(w[i] - p[i]);
        }
    if (obj < best) {
      best = obj;
      best_p = p;
    }
  });
  *best_obj = best;
  return best_p;
}

double dist2(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i] - b[i]) * double(a[i] - b[i]);
  return s;
}

const Pick kByFilter = [](int64_t o, int64_t, int64_t, const std::vector<int>& s) {
  return s[o] != 0;
};
const Pick kByChannel = [](int64_t, int64_t c, int64_t, const std::vector<int>& s) {
  return s[c] != 0;
};
Pick by_shape(int64_t k) {
  return
      [k](int64_t, int64_t c, int64_t q, const std::vector<int>& s) { return s[c * k + q] != 0; };
}

struct Case {
  LayerDims d;
  int keep;
};

TEST(Projection, FilterMatchesBruteForce) {
  std::mt19937 rng(1);
  for (Case cs : {Case{{6, 3, 4}, 3}, Case{{8, 2, 1}, 1}, Case{{7, 4, 9}, 5}, Case{{5, 5, 1}, 5}}) {
    for (int trial = 0; trial < 5; ++trial) {
      auto w = testing::random_tensor(cs.d.numel(), rng);
      double best;
      auto ref = brute_force(w, cs.d, int(cs.d.out), cs.keep, kByFilter, &best);
      auto p = w;
      LayerMask m = LayerMask::dense(cs.d);
      project_filters(p.data(), cs.d, cs.keep, m);
      EXPECT_EQ(p, ref);
      EXPECT_NEAR(dist2(w, p), best, 1e-9 * (1 + best));
      EXPECT_EQ(int64_t(m.k_out().size()), cs.keep);
      for (int64_t o = 0; o < cs.d.out; ++o)
        EXPECT_EQ(m.keep_out[o] != 0, ref[o * cs.d.in * cs.d.k] != 0);
    }
  }
}

TEST(Projection, ChannelMatchesBruteForce) {
  std::mt19937 rng(2);
  for (Case cs : {Case{{3, 6, 4}, 2}, Case{{4, 9, 1}, 4}, Case{{2, 5, 9}, 1}, Case{{3, 7, 2}, 6}}) {
    for (int trial = 0; trial < 5; ++trial) {
      auto w = testing::random_tensor(cs.d.numel(), rng);
      double best;
      auto ref = brute_force(w, cs.d, int(cs.d.in), cs.keep, kByChannel, &best);
      auto p = w;
      LayerMask m = LayerMask::dense(cs.d);
      project_channels(p.data(), cs.d, cs.keep, m);
      EXPECT_EQ(p, ref);
      EXPECT_NEAR(dist2(w, p), best, 1e-9 * (1 + best));
      for (int64_t c = 0; c < cs.d.in; ++c) EXPECT_EQ(m.keep_in[c] != 0, ref[c * cs.d.k] != 0);
    }
  }
}

TEST(Projection, ShapeMatchesBruteForce) {
  std::mt19937 rng(3);
  for (Case cs :
       {Case{{3, 3, 4}, 6}, Case{{4, 2, 4}, 3}, Case{{2, 14, 1}, 7}, Case{{5, 1, 9}, 2}}) {
    for (int trial = 0; trial < 4; ++trial) {
      auto w = testing::random_tensor(cs.d.numel(), rng);
      double best;
      auto ref = brute_force(w, cs.d, int(cs.d.in * cs.d.k), cs.keep, by_shape(cs.d.k), &best);
      auto p = w;
      LayerMask m = LayerMask::dense(cs.d);
      project_shapes(p.data(), cs.d, cs.keep, m);
      EXPECT_EQ(p, ref);
      EXPECT_NEAR(dist2(w, p), best, 1e-9 * (1 + best));
      // The mask's product equals the support, and channels with no column are pruned.
      std::vector<float> ones(cs.d.numel(), 1.0f);
      apply_mask(ones.data(), m);
      for (size_t i = 0; i < ones.size(); ++i) EXPECT_EQ(ones[i] != 0, ref[i] != 0);
      for (int64_t c = 0; c < cs.d.in; ++c) {
        bool any = false;
        for (int64_t q = 0; q < cs.d.k; ++q) any = any || ref[c * cs.d.k + q] != 0;
        EXPECT_EQ(m.keep_in[c] != 0, any);
      }
    }
  }
}

TEST(Projection, TiesKeepTheLowerIndex) {
  // Four filters of equal norm (permuted values): keep 2 -> filters 0 and 1, every time.
  LayerDims d{4, 1, 2};
  std::vector<float> w = {3, 4, 4, 3, -3, 4, 0, 5};
  for (int rep = 0; rep < 3; ++rep) {
    auto p = w;
    LayerMask m = LayerMask::dense(d);
    project_filters(p.data(), d, 2, m);
    EXPECT_EQ(m.keep_out, (std::vector<uint8_t>{1, 1, 0, 0}));
    EXPECT_EQ(p, (std::vector<float>{3, 4, 4, 3, 0, 0, 0, 0}));
  }
  EXPECT_EQ(top_groups({1.0, 2.0, 2.0, 0.5, 2.0}, 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(top_groups({0.0, 0.0, 0.0}, 1), (std::vector<int64_t>{0}));
  EXPECT_EQ(top_groups({1.0, 5.0, 3.0}, 3), (std::vector<int64_t>{0, 1, 2}));
}

TEST(Projection, CompositionIsTheSequenceOfBruteForceProjections) {
  std::mt19937 rng(4);
  const LayerDims d{6, 5, 2};
  for (int trial = 0; trial < 5; ++trial) {
    auto w = testing::random_tensor(d.numel(), rng);
    LayerSparsity s;
    s.kinds = kFilter | kChannel | kShape;
    s.keep = KeepRate::of_fraction(0.5);  // 3 of 6 filters, 3 of 5 channels, 5 of 10 columns
    double obj;
    auto ref = brute_force(w, d, 6, 3, kByFilter, &obj);
    ref = brute_force(ref, d, 5, 3, kByChannel, &obj);
    ref = brute_force(ref, d, 10, 5, by_shape(d.k), &obj);
    auto p = w;
    LayerMask m = project_layer(p.data(), d, s);
    EXPECT_EQ(p, ref);
    // The result lies in the intersection: at most 3 filters, 3 channels, 5 columns nonzero.
    EXPECT_LE(m.k_out().size(), 3u);
    EXPECT_LE(m.k_in().size(), 3u);
    std::vector<float> ones(d.numel(), 1.0f);
    apply_mask(ones.data(), m);
    for (size_t i = 0; i < ones.size(); ++i) EXPECT_EQ(ones[i] != 0, p[i] != 0) << i;
  }
}

TEST(Projection, UnprunedLayerIsUntouchedAndModelProjectionFollowsSpec) {
  auto layout = testing::tiny_layout();
  auto spec = SparsitySpec::build(layout, kFilter | kChannel, KeepRate::of_fraction(0.5));
  std::mt19937 rng(5);
  std::vector<std::vector<float>> w, orig;
  std::vector<float*> ptrs;
  for (const auto& l : layout.layers) w.push_back(testing::random_tensor(l.numel(), rng));
  orig = w;
  for (auto& t : w) ptrs.push_back(t.data());
  ModelMask mask = project_model(ptrs.data(), layout, spec);
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const LayerDims d = layer_dims(layout.layers[l]);
    if (!spec.layers[l].pruned()) {
      EXPECT_EQ(w[l], orig[l]) << l;
      EXPECT_TRUE(mask[l].all_kept());
      continue;
    }
    EXPECT_EQ(int64_t(mask[l].k_out().size()), spec.layers[l].keep.kept(d.out));
    EXPECT_EQ(int64_t(mask[l].k_in().size()), spec.layers[l].keep.kept(d.in));
    EXPECT_NEAR(mask[l].density(), 0.25, 1e-12);
  }
}

}  // namespace
}  // namespace prunex
