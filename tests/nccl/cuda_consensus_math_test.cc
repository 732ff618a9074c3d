// The CUDA consensus math against the host one: every operation on random data of odd
// sizes, then whole H-SADMM iterations (NCCL + device against MPI + host, one rank).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "backends/cuda/consensus_kernels.h"
#include "backends/cuda/cuda_consensus_math.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/mpi/mpi_communicator.h"
#include "backends/nccl/nccl_communicator.h"
#include "engine/hsadmm_consensus.h"
#include "engine/projection.h"
#include "engine/residuals.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

using testing::awkward_layout;
using testing::pointers;
using testing::random_model;

bool bits_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<int64_t> layer_offsets(const ModelLayout& layout) {
  std::vector<int64_t> off = {0};
  for (const auto& l : layout.layers) off.push_back(off.back() + l.numel());
  return off;
}

TEST(ResidualTiles, CoverEveryElementOnceInsideOneLayer) {
  const std::vector<int64_t> off = layer_offsets(awkward_layout());
  for (int64_t size : {1, 7, 100, 1 << 16}) {
    const auto tiles = residual_tiles(off, size);
    int64_t next = 0;
    for (const auto& t : tiles) {
      EXPECT_EQ(t.begin, next);
      EXPECT_GT(t.end, t.begin);
      EXPECT_LE(t.end - t.begin, size);
      EXPECT_GE(t.begin, off[t.layer]);
      EXPECT_LE(t.end, off[t.layer + 1]);
      next = t.end;
    }
    EXPECT_EQ(next, off.back());
  }
}

TEST(ResidualTiles, FirstTilesStartEachLayer) {
  const std::vector<int64_t> off = layer_offsets(awkward_layout());
  const int L = static_cast<int>(off.size()) - 1;
  for (int64_t size : {1, 7, 100, 1 << 16}) {
    const auto tiles = residual_tiles(off, size);
    const std::vector<int32_t> first = residual_first_tiles(tiles, L);
    ASSERT_EQ(first.size(), static_cast<size_t>(L) + 1);
    EXPECT_EQ(first[L], static_cast<int32_t>(tiles.size()));
    // Brute force: the tiles of layer l are exactly [first[l], first[l + 1]).
    for (int l = 0; l < L; ++l)
      for (int32_t t = 0; t < static_cast<int32_t>(tiles.size()); ++t)
        EXPECT_EQ(tiles[t].layer == l, t >= first[l] && t < first[l + 1])
            << "size " << size << " layer " << l << " tile " << t;
  }
  // Layers with no elements own no tiles and start where the next layer does.
  const std::vector<int64_t> gaps = {0, 0, 5, 5, 9, 9};
  const auto tiles = residual_tiles(gaps, 4);
  EXPECT_EQ(residual_first_tiles(tiles, 5), (std::vector<int32_t>{0, 0, 2, 2, 3, 3}));
}

// Host vectors in and out of the device math.
struct Dev {
  ConsensusMath& m;
  SpaceBuffer up(const std::vector<float>& x) {
    SpaceBuffer b = m.memory().alloc(static_cast<int64_t>(x.size() * 4));
    m.memory().from_host(b.as<float>(), x.data(), static_cast<int64_t>(x.size() * 4));
    return b;
  }
  std::vector<float> down(const SpaceBuffer& b, size_t n) {
    std::vector<float> x(n);
    m.memory().to_host(x.data(), b.as<float>(), static_cast<int64_t>(n * 4));
    return x;
  }
};

TEST(CudaConsensusMath, ElementwiseEqualHostBitForBit) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_consensus_math();
  auto cpu = make_host_consensus_math();
  Dev d{*gpu};
  std::mt19937 rng(31);
  const int64_t n = 70001;
  auto r = [&] { return testing::random_tensor(n, rng); };
  const auto theta = r(), zi = r(), z = r(), sum = r();
  auto u = r(), v = r(), grad = r();
  auto dt = d.up(theta), dzi = d.up(zi), dz = d.up(z), dsum = d.up(sum);
  auto du = d.up(u), dv = d.up(v), dg = d.up(grad);

  cpu->add_proximal(grad.data(), theta.data(), zi.data(), u.data(), 0.37, n);
  gpu->add_proximal(dg.as<float>(), dt.as<float>(), dzi.as<float>(), du.as<float>(), 0.37, n);
  EXPECT_TRUE(bits_equal(d.down(dg, n), grad)) << "add_proximal";

  std::vector<float> buf(n);
  auto dbuf = gpu->memory().alloc(n * 4);
  cpu->theta_plus_u(theta.data(), u.data(), buf.data(), n);
  gpu->theta_plus_u(dt.as<float>(), du.as<float>(), dbuf.as<float>(), n);
  EXPECT_TRUE(bits_equal(d.down(dbuf, n), buf)) << "theta_plus_u";

  const CandidateParams p{0.3, 0.07, 1e-4, 3, 2};
  cpu->node_candidate(sum.data(), z.data(), v.data(), p, buf.data(), n);
  gpu->node_candidate(dsum.as<float>(), dz.as<float>(), dv.as<float>(), p, dbuf.as<float>(), n);
  EXPECT_TRUE(bits_equal(d.down(dbuf, n), buf)) << "node_candidate";

  cpu->duals(u.data(), v.data(), theta.data(), zi.data(), z.data(), n);
  gpu->duals(du.as<float>(), dv.as<float>(), dt.as<float>(), dzi.as<float>(), dz.as<float>(), n);
  EXPECT_TRUE(bits_equal(d.down(du, n), u)) << "u";
  EXPECT_TRUE(bits_equal(d.down(dv, n), v)) << "v";
  cpu->duals(u.data(), nullptr, theta.data(), zi.data(), z.data(), n);
  gpu->duals(du.as<float>(), nullptr, dt.as<float>(), dzi.as<float>(), dz.as<float>(), n);
  EXPECT_TRUE(bits_equal(d.down(du, n), u)) << "u alone (flat)";

  cpu->rescale(u.data(), 0.1, n);
  gpu->rescale(du.as<float>(), 0.1, n);
  EXPECT_TRUE(bits_equal(d.down(du, n), u)) << "rescale";
}

TEST(CudaConsensusMath, ResidualSumsEqualHostToRounding) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_consensus_math();
  auto cpu = make_host_consensus_math();
  Dev d{*gpu};
  std::mt19937 rng(32);
  const ModelLayout layout = awkward_layout();
  const std::vector<int64_t> off = layer_offsets(layout);
  const int64_t n = off.back();
  std::vector<std::vector<float>> host;
  std::vector<SpaceBuffer> dev;
  for (int i = 0; i < 7; ++i) {
    host.push_back(testing::random_tensor(n, rng));
    dev.push_back(d.up(host.back()));
  }
  const int L = static_cast<int>(layout.layers.size());
  for (bool inter : {false, true}) {
    auto in = [&](auto ptr) {
      ResidualInputs r;
      r.offset = &off;
      r.theta = ptr(0), r.z_i = ptr(1), r.z_i_prev = ptr(2), r.u = ptr(3);
      r.z = ptr(4), r.z_prev = ptr(5), r.v = ptr(6);
      r.inter = inter;
      return r;
    };
    std::vector<double> want(static_cast<size_t>(L) * ResidualPartials::kFields), got(want.size());
    cpu->residual_partials(in([&](int i) { return host[i].data(); }), want.data());
    auto sums = gpu->memory().alloc(static_cast<int64_t>(got.size() * 8));
    gpu->residual_partials(in([&](int i) { return dev[i].as<const float>(); }), sums.as<double>());
    gpu->memory().to_host(got.data(), sums.as<double>(), static_cast<int64_t>(got.size() * 8));
    for (size_t k = 0; k < want.size(); ++k)
      EXPECT_NEAR(got[k], want[k], 1e-12 * std::max(1.0, std::abs(want[k])))
          << "inter " << inter << " layer " << k / ResidualPartials::kFields << " field "
          << k % ResidualPartials::kFields;
    // Deterministic: the same inputs again give the same bits (no atomics in the sums).
    for (int again = 0; again < 3; ++again) {
      std::vector<double> more(got.size());
      gpu->residual_partials(in([&](int i) { return dev[i].as<const float>(); }),
                             sums.as<double>());
      gpu->memory().to_host(more.data(), sums.as<double>(), static_cast<int64_t>(more.size() * 8));
      EXPECT_EQ(std::memcmp(more.data(), got.data(), got.size() * 8), 0) << "run " << again;
    }
  }
}

TEST(CudaConsensusMath, MaskProjectionAndCompactionEqualHost) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_consensus_math();
  auto cpu = make_host_consensus_math();
  Dev d{*gpu};
  std::mt19937 rng(33);
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel | kShape, KeepRate::of_fraction(0.5));
  auto upload = [&](std::vector<std::vector<float>>& w) {
    std::vector<SpaceBuffer> b;
    for (const auto& x : w) b.push_back(d.up(x));
    return b;
  };
  auto ptrs = [](std::vector<SpaceBuffer>& b) {
    std::vector<float*> p;
    for (auto& x : b) p.push_back(x.as<float>());
    return p;
  };
  auto same = [&](std::vector<SpaceBuffer>& b, std::vector<std::vector<float>>& w) {
    for (size_t l = 0; l < w.size(); ++l)
      if (!bits_equal(d.down(b[l], w[l].size()), w[l])) return false;
    return true;
  };
  // Projection.
  auto w = random_model(layout, rng);
  auto dw = upload(w);
  auto wp = pointers(w), dp = ptrs(dw);
  EXPECT_EQ(gpu->project(dp.data(), layout, spec), cpu->project(wp.data(), layout, spec));
  EXPECT_TRUE(same(dw, w)) << "projection";
  // A mask applied to fresh weights (twice: the element masks are cached).
  const ModelMask mask = testing::random_mask(layout, spec, 0.6, rng);
  for (int rep = 0; rep < 2; ++rep) {
    w = random_model(layout, rng);
    dw = upload(w);
    wp = pointers(w), dp = ptrs(dw);
    cpu->apply_mask(wp.data(), mask);
    gpu->apply_mask(dp.data(), mask);
    EXPECT_TRUE(same(dw, w)) << "apply_mask, time " << rep;
  }
  // Pack z + v into buckets and unpack with a scale, whole and bucket by bucket; pad 3: the
  // hsadmm-rail buckets (zeros past the values).
  const CompactionPlan plan(layout, mask, 4096);
  ASSERT_GE(plan.buckets(), 2);
  for (int pad : {1, 3}) {
    SCOPED_TRACE(::testing::Message() << "pad " << pad);
    cpu->set_plan(&plan, pad, DType::f32);
    gpu->set_plan(&plan, pad, DType::f32);
    auto z = random_model(layout, rng), v = random_model(layout, rng);
    auto dz = upload(z), dv = upload(v);
    auto zp = pointers(z), vp = pointers(v), dzp = ptrs(dz), dvp = ptrs(dv);
    for (int b : {-1, 0}) {
      for (int k = (b < 0 ? -1 : 0); k < (b < 0 ? 0 : plan.buckets()); ++k) {
        cpu->pack(zp.data(), vp.data(), k);
        gpu->pack(dzp.data(), dvp.data(), k);
      }
      for (int k = 0; k < plan.buckets(); ++k) {
        ASSERT_EQ(gpu->bucket_padded(k), cpu->bucket_padded(k));
        std::vector<float> got(gpu->bucket_padded(k));
        gpu->memory().to_host(got.data(), gpu->bucket(k), static_cast<int64_t>(got.size() * 4));
        const auto* want = static_cast<const float*>(cpu->bucket(k));
        EXPECT_TRUE(bits_equal(got, std::vector<float>(want, want + cpu->bucket_padded(k))))
            << "bucket " << k;
      }
      auto out = random_model(layout, rng);
      auto dout = upload(out);
      auto op = pointers(out), dop = ptrs(dout);
      for (int k = (b < 0 ? -1 : 0); k < (b < 0 ? 0 : plan.buckets()); ++k) {
        cpu->unpack(op.data(), 0.25f, k);
        gpu->unpack(dop.data(), 0.25f, k);
      }
      EXPECT_TRUE(same(dout, out)) << "unpack, per bucket " << (b >= 0);
    }
  }
}

struct NullTimer : PhaseTimer {
  void add(Phase, double, double) override {}
};

// Whole iterations, one rank: NCCL + the device math give the host's z, masks and residuals.
TEST(HsadmmConsensusOnGpu, EqualsHostIterationByIteration) {
  PRUNEX_REQUIRE_DEVICE();
  testing::init_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) GTEST_SKIP() << "one-rank test run under " << size << " ranks";
  const ModelLayout layout = awkward_layout();
  const SparsitySpec spec =
      SparsitySpec::build(layout, kFilter | kChannel, KeepRate::of_fraction(0.5));
  HsadmmConfig cfg;
  cfg.rho1 = 0.5;
  cfg.rho2 = 0.2;
  cfg.t_freeze = 3;  // iterations 4.. run on the frozen mask
  const int64_t n = layer_offsets(layout).back();
  std::mt19937 rng(34);
  const auto theta0 = testing::random_tensor(n, rng);
  auto nccl = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, NodeGrouping{1, 1});
  auto mpi = make_mpi_communicator(1);
  auto gpu_math = make_cuda_consensus_math();
  Dev d{*gpu_math};
  SpaceBuffer dtheta = d.up(theta0);
  HsadmmConsensus host(layout, spec, cfg, 4096, Strategy::hsadmm, *mpi, theta0.data());
  HsadmmConsensus dev(layout, spec, cfg, 4096, Strategy::hsadmm, *nccl, dtheta.as<float>(),
                      DType::f32, std::move(gpu_math));
  NullTimer timer;
  std::vector<float> theta = theta0;
  for (int k = 1; k <= 6; ++k) {
    SCOPED_TRACE(::testing::Message() << "iteration " << k);
    // A local step: theta moves towards a fixed random target.
    const auto target = testing::random_tensor(n, rng);
    for (int64_t i = 0; i < n; ++i) theta[i] = 0.5f * theta[i] + 0.5f * target[i];
    dev.math().memory().from_host(dtheta.as<float>(), theta.data(), n * 4);
    const ConsensusStep want = host.step(k, theta.data(), timer);
    const ConsensusStep got = dev.step(k, dtheta.as<float>(), timer);
    EXPECT_EQ(got.payload_mask, want.payload_mask);
    EXPECT_EQ(dev.global_mask(), host.global_mask());
    EXPECT_EQ(got.frozen, want.frozen);
    std::vector<float> z(n);
    dev.math().memory().to_host(z.data(), dev.z(), n * 4);
    EXPECT_TRUE(bits_equal(z, std::vector<float>(host.z(), host.z() + n))) << "z";
    dev.math().memory().to_host(z.data(), dev.u(), n * 4);
    EXPECT_TRUE(bits_equal(z, std::vector<float>(host.u(), host.u() + n))) << "u";
    for (size_t l = 0; l < want.global.layers.size(); ++l) {
      EXPECT_NEAR(got.global.layers[l].r_intra, want.global.layers[l].r_intra,
                  1e-9 * (1 + want.global.layers[l].r_intra));
      EXPECT_NEAR(got.global.layers[l].s_inter, want.global.layers[l].s_inter,
                  1e-9 * (1 + want.global.layers[l].s_inter));
    }
    EXPECT_EQ(got.rho1, want.rho1);
  }
}

}  // namespace
}  // namespace prunex
