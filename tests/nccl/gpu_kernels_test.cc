// Every CUDA kernel against its CPU reference on random data of awkward sizes. Needs a GPU:
// on a machine without one each test skips and says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/cuda/admm_kernels.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/gpu_compaction.h"
#include "backends/cuda/gpu_projection.h"
#include "backends/cuda/group_norms.h"
#include "engine/compaction.h"
#include "engine/hsadmm_updates.h"
#include "engine/projection.h"
#include "tests/nccl/mask_bytes.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

using testing::awkward_layout;
using testing::pointers;
using testing::random_mask;
using testing::random_model;
using testing::random_tensor;

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                  const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), 1e-5 * std::abs(want[i]) + 1e-300)
        << what << " group " << i << ": " << got[i] << " vs " << want[i];
}

// Awkward {out, in, k}: not multiples of 32 or 256, 1-wide, taller than a column block.
const LayerDims kDims[] = {{1, 1, 1},     {7, 3, 9},   {129, 37, 1},
                           {33, 129, 25}, {300, 5, 9}, {2, 1000, 3}};

TEST(GroupNorms, MatchDoubleReference) {
  PRUNEX_REQUIRE_DEVICE();
  std::mt19937 rng(21);
  CudaStream s;
  for (const LayerDims& d : kDims) {
    SCOPED_TRACE(::testing::Message() << d.out << "x" << d.in << "x" << d.k);
    const std::vector<float> w = random_tensor(d.numel(), rng);
    std::vector<uint8_t> keep_out(d.out), keep_in(d.in);
    for (auto& b : keep_out) b = rng() % 3 != 0;
    for (auto& b : keep_in) b = rng() % 3 != 0;
    const int64_t row = d.in * d.k;
    std::vector<double> fw(d.out, 0), cw(d.in, 0), sw(row, 0);
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t j = 0; j < row; ++j) {
        const double x = w[o * row + j];
        fw[o] += x * x;
        if (keep_out[o]) cw[j / d.k] += x * x;
        if (keep_out[o] && keep_in[j / d.k]) sw[j] += x * x;
      }
    DeviceArray<float> wd(w);
    DeviceArray<uint8_t> kod(keep_out), kid(keep_in);
    DeviceArray<double> fn(d.out), cn(d.in), sn(row), scratch(row);
    filter_norms_gpu(wd.data(), d, fn.data(), s.get());
    channel_norms_gpu(wd.data(), d, kod.data(), scratch.data(), cn.data(), s.get());
    shape_norms_gpu(wd.data(), d, kod.data(), kid.data(), sn.data(), s.get());
    s.synchronize();
    expect_close(fn.download(), fw, "filter");
    expect_close(cn.download(), cw, "channel");
    expect_close(sn.download(), sw, "shape");
  }
}

TEST(GpuProjection, EqualsCpuProjection) {
  PRUNEX_REQUIRE_DEVICE();
  std::mt19937 rng(22);
  const ModelLayout layout = awkward_layout();
  CudaStream s;
  for (SparsityKinds kinds : {unsigned(kFilter), unsigned(kChannel), unsigned(kShape),
                              kFilter | kChannel, kFilter | kChannel | kShape}) {
    for (double keep : {0.3, 0.5, 1.0}) {
      SCOPED_TRACE(::testing::Message() << sparsity_kinds_name(kinds) << " keep " << keep);
      const SparsitySpec spec = SparsitySpec::build(layout, kinds, KeepRate::of_fraction(keep));
      auto w = random_model(layout, rng);
      std::vector<DeviceArray<float>> dev;
      for (const auto& x : w) dev.emplace_back(x);
      std::vector<float*> dp;
      for (auto& d : dev) dp.push_back(d.data());
      auto wp = pointers(w);
      const ModelMask want = project_model(wp.data(), layout, spec);
      const ModelMask got = project_model_gpu(dp.data(), layout, spec, s.get());
      EXPECT_EQ(got, want);
      for (size_t l = 0; l < w.size(); ++l) {
        const auto back = dev[l].download();
        for (size_t i = 0; i < back.size(); ++i)
          ASSERT_TRUE(same_bits(back[i], w[l][i])) << "layer " << l << " element " << i;
      }
    }
  }
}

TEST(GpuCompaction, PackUnpackEqualCpuBitForBit) {
  PRUNEX_REQUIRE_DEVICE();
  std::mt19937 rng(23);
  const ModelLayout layout = awkward_layout();
  CudaStream s;
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
  for (double p : {0.1, 0.5, 1.0}) {
    for (int64_t bucket_bytes : {int64_t(4 * 97), kDefaultBucketBytes}) {
      SCOPED_TRACE(::testing::Message() << "p=" << p << " bucket_bytes=" << bucket_bytes);
      const ModelMask mask = random_mask(layout, spec, p, rng);
      const CompactionPlan plan(layout, mask, bucket_bytes);
      auto z = random_model(layout, rng), v = random_model(layout, rng);
      std::vector<DeviceArray<float>> zd, vd, od;
      std::vector<const float*> zp, vp;
      std::vector<float*> op;
      for (size_t l = 0; l < z.size(); ++l) {
        zd.emplace_back(z[l]);
        vd.emplace_back(v[l]);
        od.emplace_back(std::vector<float>(z[l].size(), std::nanf("")));
        zp.push_back(zd.back().data());
        vp.push_back(vd.back().data());
        op.push_back(od.back().data());
      }
      GpuCompaction gc(plan);
      DeviceArray<float> stream(gc.stream_floats());
      gc.pack(zp.data(), vp.data(), stream.data(), s.get());
      const float scale = 0.25f;
      gc.unpack(stream.data(), op.data(), scale, s.get());
      s.synchronize();

      const auto zc = pointers(z), vc = pointers(v);
      const std::vector<const float*> zcc(zc.begin(), zc.end()), vcc(vc.begin(), vc.end());
      BucketSet buckets(plan);
      pack(plan, zcc.data(), vcc.data(), buckets.data());
      const auto got = stream.download();
      ASSERT_EQ(gc.buckets(), buckets.size());
      for (int b = 0; b < buckets.size(); ++b)
        for (int64_t i = 0; i < buckets.values(b); ++i)
          ASSERT_TRUE(same_bits(got[b * plan.bucket_capacity() + i], buckets.bucket(b)[i]))
              << "bucket " << b << " float " << i;
      std::vector<std::vector<float>> want(z.size());
      for (size_t l = 0; l < z.size(); ++l) want[l].assign(z[l].size(), std::nanf(""));
      auto wp = pointers(want);
      unpack(plan, buckets.data(), wp.data(), scale);
      for (size_t l = 0; l < z.size(); ++l) {
        const auto back = od[l].download();
        for (size_t i = 0; i < back.size(); ++i)
          ASSERT_TRUE(same_bits(back[i], want[l][i])) << "layer " << l << " element " << i;
      }
    }
  }
}

TEST(AdmmKernels, FusedUpdatesEqualCpuComposition) {
  PRUNEX_REQUIRE_DEVICE();
  std::mt19937 rng(24);
  CudaStream s;
  for (int64_t n : {int64_t(1), int64_t(255), int64_t(100003)}) {
    const auto sum = random_tensor(n, rng), z = random_tensor(n, rng), v = random_tensor(n, rng);
    const auto theta = random_tensor(n, rng), u = random_tensor(n, rng), zi = random_tensor(n, rng);
    std::vector<uint8_t> mask(n);
    for (auto& b : mask) b = rng() % 2;
    const CandidateParams p{0.7, 1.3, 5e-4, 4, 3};

    std::vector<float> want_c(n), want_u = u, want_v = v, want_tpu(n);
    node_candidate(sum.data(), z.data(), v.data(), p, want_c.data(), n);
    std::vector<float> want_cm = want_c;
    apply_mask(want_cm.data(), mask.data(), n);
    update_u(want_u.data(), theta.data(), zi.data(), n);
    update_v(want_v.data(), zi.data(), z.data(), n);
    theta_plus_u(theta.data(), u.data(), want_tpu.data(), n);

    DeviceArray<float> sd(sum), zd(z), vd(v), td(theta), ud(u), zid(zi), out(n), outm(n), tpu(n);
    DeviceArray<uint8_t> md(mask);
    node_candidate_gpu(sd.data(), zd.data(), vd.data(), nullptr, p, out.data(), n, s.get());
    node_candidate_gpu(sd.data(), zd.data(), vd.data(), md.data(), p, outm.data(), n, s.get());
    theta_plus_u_gpu(td.data(), ud.data(), tpu.data(), n, s.get());
    dual_updates_gpu(ud.data(), vd.data(), td.data(), zid.data(), zd.data(), n, s.get());
    s.synchronize();
    const auto c = out.download(), cm = outm.download(), gu = ud.download(), gv = vd.download(),
               gt = tpu.download();
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_TRUE(same_bits(c[k], want_c[k])) << "candidate " << k;
      ASSERT_TRUE(same_bits(cm[k], want_cm[k])) << "masked candidate " << k;
      ASSERT_TRUE(same_bits(gu[k], want_u[k])) << "u " << k;
      ASSERT_TRUE(same_bits(gv[k], want_v[k])) << "v " << k;
      ASSERT_TRUE(same_bits(gt[k], want_tpu[k])) << "theta + u " << k;
    }
  }
}

TEST(BitKernels, MatchHostExpansion) {
  PRUNEX_REQUIRE_DEVICE();
  std::mt19937 rng(25);
  CudaStream s;
  for (int64_t n : {int64_t(1), int64_t(13), int64_t(4099)}) {
    std::vector<uint8_t> in(n);
    for (auto& b : in) b = static_cast<uint8_t>(rng());
    std::vector<uint8_t> want(8 * n);
    expand_bits(in.data(), n, want.data());
    DeviceArray<uint8_t> ind(in), wide(8 * n), back(n);
    expand_bits_gpu(ind.data(), n, wide.data(), s.get());
    pack_bits_gpu(wide.data(), n, back.data(), s.get());
    s.synchronize();
    EXPECT_EQ(wide.download(), want);
    EXPECT_EQ(back.download(), in);
  }
}

// Event timing measures device work: a kernel that moves more bytes takes longer.
}  // namespace
}  // namespace prunex
