// The peer systems' engine parts against arithmetic and brute force: CGX's quantizer (error
// per value at most unit / 2, exact wire sizes), its scatter-reduce-allgather and ring
// all-reduce against the exact sum within the bound the quantization steps allow (derived
// below), identical on every rank; PacTrain's pruning selection against a full sort, the
// ternary quantizer's mean against its input, and the int8 sum of ternary vectors exactly;
// point-to-point messages in order; the adaptive bits on separable layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <vector>

#include "backends/inproc/inproc_communicator.h"
#include "engine/cgx_adaptive.h"
#include "engine/cgx_allreduce.h"
#include "engine/cgx_quantize.h"
#include "engine/pactrain.h"
#include "engine/plan_builder.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

std::vector<float> uniform_values(int64_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(g);
  return v;
}

TEST(CgxCodec, WireBytesAreMetadataPlusPackedLevels) {
  EXPECT_EQ(cgx_wire_bytes(0, 4, 1024), 0);
  EXPECT_EQ(cgx_wire_bytes(1, 4, 1024), 8 + 1);
  EXPECT_EQ(cgx_wire_bytes(1024, 4, 1024), 8 + 512);
  EXPECT_EQ(cgx_wire_bytes(1025, 4, 1024), 16 + 513);
  EXPECT_EQ(cgx_wire_bytes(1000, 3, 128), 8 * 8 + 375);
  EXPECT_EQ(cgx_wire_bytes(7, 3, 128), 8 + 3);  // 21 bits
}

TEST(CgxCodec, NearestRoundingErrsAtMostHalfAUnitAndWritesExactlyItsBytes) {
  for (int bits : {1, 2, 3, 4, 5, 7, 8})
    for (int bucket : {1, 7, 128, 1024})
      for (int64_t n : {1, 5, 127, 1000, 3001}) {
        const auto x = uniform_values(n, 17 * bits + n, -3, 5);
        const int64_t bytes = cgx_wire_bytes(n, bits, bucket);
        std::vector<uint8_t> wire(static_cast<size_t>(bytes) + 16, 0xAB);  // guard bytes
        cgx_quantize(x.data(), n, bits, bucket, false, 1, wire.data());
        for (int64_t i = bytes; i < bytes + 16; ++i) ASSERT_EQ(wire[i], 0xAB) << "wrote past";
        std::vector<float> y(static_cast<size_t>(n));
        cgx_dequantize(wire.data(), n, bits, bucket, y.data(), false);
        for (int64_t b0 = 0; b0 < n; b0 += bucket) {
          const int64_t b1 = std::min(n, b0 + bucket);
          const auto [mn, mx] = std::minmax_element(x.begin() + b0, x.begin() + b1);
          const double unit = (*mx - *mn) / ((1 << bits) - 1);
          for (int64_t i = b0; i < b1; ++i)
            ASSERT_LE(std::fabs(y[i] - x[i]), unit / 2 * (1 + 1e-5) + 1e-6)
                << "bits " << bits << " bucket " << bucket << " n " << n << " i " << i;
        }
      }
}

TEST(CgxCodec, StochasticRoundingIsUnbiased) {
  const std::vector<float> x = {0.0f, 0.3f, 1.0f, 0.71f};  // one bucket, unit 1/3 (2 bits)
  std::vector<double> mean(x.size(), 0);
  const int draws = 20000;
  std::vector<uint8_t> wire(static_cast<size_t>(cgx_wire_bytes(4, 2, 4)));
  std::vector<float> y(4);
  for (int d = 0; d < draws; ++d) {
    cgx_quantize(x.data(), 4, 2, 4, true, 1000 + d, wire.data());
    cgx_dequantize(wire.data(), 4, 2, 4, y.data(), false);
    for (size_t i = 0; i < 4; ++i) mean[i] += y[i] / draws;
  }
  // Each draw is min + unit x (floor or ceil): variance <= unit^2 / 4; 5 sigma.
  const double tol = 5 * (1.0 / 3) / 2 / std::sqrt(draws);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(mean[i], x[i], tol) << i;
}

// A buffer of small_cnn's first DDP bucket shape: a compressed layer and an fp32 one.
CgxBufferCodec two_layer_codec(int64_t big, int64_t small, int bits) {
  CgxLayerCodec q{true, bits, 64};
  CgxLayerCodec raw{false, bits, 64};
  return CgxBufferCodec({{0, big, q}, {big, small, raw}});
}

TEST(CgxCodec, ChunksOfABufferEncodeEachPieceFromItsFirstValue) {
  const auto codec = two_layer_codec(1000, 10, 4);
  const auto x = uniform_values(codec.size(), 3);
  for (int parts : {1, 2, 3, 7}) {
    std::vector<float> y(x.size(), 0);
    int64_t total = 0;
    for (int c = 0; c < parts; ++c) {
      const auto [lo, hi] = CgxBufferCodec::chunk(codec.size(), parts, c);
      std::vector<uint8_t> w(static_cast<size_t>(codec.wire_bytes(lo, hi)));
      total += static_cast<int64_t>(w.size());
      codec.encode(x.data(), lo, hi, false, 1, w.data());
      codec.decode(w.data(), lo, hi, y.data(), false);
    }
    EXPECT_EQ(total, codec.wire_bytes_split(parts));
    for (int64_t i = 1000; i < 1010; ++i) EXPECT_EQ(y[i], x[i]) << "fp32 layer travels exactly";
    for (int64_t i = 0; i < 1000; ++i) EXPECT_NEAR(y[i], x[i], 2.0 / 15 / 2 + 1e-6);
  }
}

TEST(CgxCodec, ANonFiniteValueMakesItsBucketDecodeToNaNOnEveryRank) {
  std::vector<float> x(300, 0.5f);
  x[77] = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint8_t> wire(static_cast<size_t>(cgx_wire_bytes(300, 4, 128)));
  std::vector<float> y(300);
  cgx_quantize(x.data(), 300, 4, 128, false, 1, wire.data());
  cgx_dequantize(wire.data(), 300, 4, 128, y.data(), false);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(std::isnan(y[i]), i < 128) << i;  // bucket 0 only
  // Through the all-reduce: one rank's Inf reaches every rank as NaN (the trainer's finite
  // check then stops them all alike).
  const auto codec = two_layer_codec(3001, 17, 4);
  spawn_ranks({4, 2}, [&](Communicator& comm) {
    auto v = uniform_values(codec.size(), 9 + comm.world_rank());
    if (comm.world_rank() == 3) v[5] = std::numeric_limits<float>::infinity();
    cgx_allreduce(comm, v.data(), codec, {});
    EXPECT_TRUE(std::isnan(v[5])) << "rank " << comm.world_rank();
  });
}

// Finite values whose range overflows float: the unit is Inf, and (max - min) / unit is
// Inf / Inf = NaN for the largest value. Its level is clamped to 0 (as on the GPU: fmaxf(NaN,
// 0) = 0; a NaN cast to an integer would be undefined), and the bucket decodes to values that
// are not finite (0 x Inf), so the trainer's finite check stops every rank alike.
TEST(CgxCodec, ARangeThatOverflowsHasLevelZeroAndDecodesNonFinite) {
  const std::vector<float> x = {-3e38f, 3e38f, 0.0f};
  std::vector<uint8_t> wire(static_cast<size_t>(cgx_wire_bytes(3, 8, 16)));
  cgx_quantize(x.data(), 3, 8, 16, false, 1, wire.data());
  float unit;
  std::memcpy(&unit, wire.data(), 4);
  EXPECT_TRUE(std::isinf(unit));
  EXPECT_EQ(wire[8 + 1], 0) << "the largest value's level";
  std::vector<float> y(3);
  cgx_dequantize(wire.data(), 3, 8, 16, y.data(), false);
  for (float v : y) EXPECT_FALSE(std::isfinite(v));
}

// CGX's all-reduce over P x M ranks of inputs in [-1, 1] with b bits. Each quantization of a
// quantity whose values lie in [-A, A] errs by at most unit / 2 = 2A / (2^b - 1) / 2 per value.
// - SRA: P - 1 inputs quantized (A = 1) and the owner's sum (A = P): the node sum errs by at
//   most E1 = (P - 1 + P) / q with q = 2^b - 1.
// - Ring over M node sums (each within [-(P + E1), P + E1]): hop s re-quantizes a sum of s + 1
//   of them, the owner its sum of M: E2 = M E1 + (sum_{s=1}^{M-1} s + M) (P + E1) / q.
// - The broadcast carries the ring's quantized chunks unchanged.
double cgx_bound(int p, int m, int bits) {
  const double q = (1 << bits) - 1;
  const double e1 = p > 1 ? (p - 1 + p) / q : 0.0;
  if (m < 2) return e1;
  return m * e1 + (m * (m - 1) / 2.0 + m) * (p + e1) / q;
}

void check_cgx_allreduce(int nodes, int gpus_per_node, int bits) {
  const NodeGrouping ng{nodes * gpus_per_node, gpus_per_node};
  const auto codec = two_layer_codec(3001, 17, bits);
  const int64_t n = codec.size();
  std::vector<double> exact(static_cast<size_t>(n), 0);
  for (int r = 0; r < ng.world_size; ++r) {
    const auto x = uniform_values(n, 100 + r);
    for (int64_t i = 0; i < n; ++i) exact[i] += x[i];
  }
  std::vector<std::vector<float>> out(ng.world_size);
  std::mutex m;
  spawn_ranks(ng, [&](Communicator& comm) {
    auto x = uniform_values(n, 100 + comm.world_rank());
    cgx_allreduce(comm, x.data(), codec, {});
    std::lock_guard<std::mutex> lock(m);
    out[comm.world_rank()] = x;
  });
  const double bound = cgx_bound(gpus_per_node, nodes, bits);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int r = 1; r < ng.world_size; ++r)
      ASSERT_EQ(out[r][i], out[0][i]) << "rank " << r << " differs at " << i;
    worst = std::max(worst, std::fabs(out[0][i] - exact[i]));
  }
  EXPECT_LE(worst, bound * (1 + 1e-4) + 1e-5) << nodes << " x " << gpus_per_node;
  EXPECT_GT(worst, 0) << "quantization must show";  // the test can see an error at all
}

TEST(CgxAllreduce, ScatterReduceAllgatherWithinItsBound) {
  check_cgx_allreduce(1, 2, 4);
  check_cgx_allreduce(1, 4, 4);
  check_cgx_allreduce(1, 3, 2);
}
TEST(CgxAllreduce, RingWithinItsBound) {
  check_cgx_allreduce(2, 1, 4);
  check_cgx_allreduce(4, 1, 4);
  check_cgx_allreduce(5, 1, 3);
}
TEST(CgxAllreduce, HierarchicalWithinItsBound) {
  check_cgx_allreduce(2, 2, 4);
  check_cgx_allreduce(3, 2, 4);
}

TEST(CgxAllreduce, SendsTheBytesThePlanCharges) {
  const NodeGrouping ng{6, 2};
  const auto codec = two_layer_codec(3001, 17, 4);
  std::vector<double> sent(6, 0);
  std::mutex m;
  spawn_ranks(ng, [&](Communicator& comm) {
    auto x = uniform_values(codec.size(), 1);
    cgx_allreduce(comm, x.data(), codec, {});
    double s = 0;
    for (const auto& c : comm.calls())
      if (c.op == CollectiveOp::send) s += static_cast<double>(c.bytes);
    std::lock_guard<std::mutex> lock(m);
    sent[comm.world_rank()] = s;
  });
  const CgxStepBytes b = cgx_step_bytes(codec, 2, 3);
  // Per rank the chunks differ (the fp32 layer sits in the last one), so the plan charges the
  // mean; summed over the ranks it is exact: in each node's two SRA rounds every chunk goes to
  // the P - 1 other ranks; in each of the ring's two rounds every chunk crosses M - 1 hops.
  const double total = std::accumulate(sent.begin(), sent.end(), 0.0);
  EXPECT_DOUBLE_EQ(total, 3 * 2 * (2 - 1) * 2 * b.sra_block + 2 * (3 - 1) * 3 * b.ring_block);
  EXPECT_EQ(sent[1], sent[3]);  // both non-leaders own chunk 1 of their node's 2
}

TEST(PointToPoint, MessagesArriveInOrderAndRecordTheirBytes) {
  const NodeGrouping ng{3, 3};
  spawn_ranks(ng, [&](Communicator& comm) {
    const int me = comm.rank(Group::intra);
    const int next = (me + 1) % 3, prev = (me + 2) % 3;
    std::vector<int32_t> a = {me, 10 + me}, b = {100 + me};
    auto s1 = comm.send(a.data(), 2, DType::i32, next, Group::intra);
    auto s2 = comm.send(b.data(), 1, DType::i32, next, Group::intra);
    std::vector<int32_t> ra(2), rb(1);
    auto r1 = comm.recv(ra.data(), 2, DType::i32, prev, Group::intra);
    auto r2 = comm.recv(rb.data(), 1, DType::i32, prev, Group::intra);
    r1->wait();
    r2->wait();
    s1->wait();
    s2->wait();
    EXPECT_EQ(ra, (std::vector<int32_t>{prev, 10 + prev}));
    EXPECT_EQ(rb, (std::vector<int32_t>{100 + prev}));
    ASSERT_EQ(comm.calls().size(), 4u);
    EXPECT_EQ(comm.calls()[0].op, CollectiveOp::send);
    EXPECT_EQ(comm.calls()[0].bytes, 8u);
    EXPECT_EQ(comm.calls()[2].op, CollectiveOp::recv);
  });
}

TEST(Pactrain, PrunesTheLowestScoresLikeAFullSort) {
  for (int64_t n : {1, 10, 999})
    for (double ratio : {0.0, 0.2, 0.5, 0.8}) {
      auto x = uniform_values(n, n);
      for (int64_t i = 0; i < n; i += 7) x[i] = 0.25f;  // ties
      const auto got = lowest_scores(x.data(), n, ratio);
      std::vector<int64_t> idx(static_cast<size_t>(n));
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return x[a] < x[b]; });
      idx.resize(static_cast<size_t>(std::llround(ratio * n)));
      std::sort(idx.begin(), idx.end());
      EXPECT_EQ(got, idx) << n << " " << ratio;
    }
}

TEST(Pactrain, KeptCountsAndCompactBucketsFollowTheRatio) {
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  int64_t dense = 0, kept = 0;
  for (const auto& l : layout.layers) {
    dense += l.numel();
    kept += pactrain_kept(l, 0.5);
    if (!pactrain_prunable(l)) {
      EXPECT_EQ(pactrain_kept(l, 0.5), l.numel()) << l.name;
    }
  }
  const auto compact = pactrain_compact_floats(layout, 0.5);
  EXPECT_EQ(std::accumulate(compact.begin(), compact.end(), int64_t(0)), kept);
  EXPECT_LT(kept, dense * 0.51);
  EXPECT_GT(kept, dense * 0.49);
}

TEST(Pactrain, TernarizationIsUnbiased) {
  const auto x = uniform_values(64, 5, -0.5f, 0.5f);
  const float s = max_abs(x.data(), 64);
  std::vector<double> mean(64, 0);
  std::vector<int8_t> t(64);
  const int draws = 20000;
  for (int d = 0; d < draws; ++d) {
    ternarize(x.data(), 64, s, 77 + d, t.data());
    for (int i = 0; i < 64; ++i) mean[i] += s * t[i] / static_cast<double>(draws);
  }
  // s * t has variance <= s^2 / 4 + ... <= s^2: 5 sigma of the mean.
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(mean[i], x[i], 5 * s / std::sqrt(draws)) << i;
}

TEST(Pactrain, ANonFiniteGradientMakesTheScalerInfinite) {
  const std::vector<float> x = {0.1f, -std::numeric_limits<float>::infinity(), 0.2f};
  EXPECT_TRUE(std::isinf(max_abs(x.data(), 3)));
  const std::vector<float> y = {0.1f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE(std::isinf(max_abs(y.data(), 2)));
  std::vector<int8_t> t(3, 9);
  ternarize(x.data(), 3, max_abs(x.data(), 3), 1, t.data());
  EXPECT_EQ(t, (std::vector<int8_t>{0, 0, 0}));  // and Inf x 0 decodes to NaN
}

TEST(Pactrain, Int8SumOfTernaryVectorsIsExact) {
  const NodeGrouping ng{5, 1};
  std::vector<std::vector<int8_t>> levels(5, std::vector<int8_t>(300));
  for (int r = 0; r < 5; ++r) {
    const auto x = uniform_values(300, 40 + r);
    ternarize(x.data(), 300, 1.0f, 9 + r, levels[r].data());
  }
  spawn_ranks(ng, [&](Communicator& comm) {
    std::vector<int8_t> v = levels[comm.world_rank()];
    comm.allreduce(v.data(), v.size(), DType::i8, ReduceOp::sum, Group::world);
    for (int i = 0; i < 300; ++i) {
      int sum = 0;
      for (int r = 0; r < 5; ++r) sum += levels[r][i];
      ASSERT_EQ(v[i], sum) << i;
    }
  });
}

TEST(CgxAdaptive, SeparableLayersGetBitsByTheirNorm) {
  // Three well-separated groups of (size, norm): the largest norms get 4 bits.
  const std::vector<double> sizes = {1e4, 1.1e4, 1e6, 1.2e6, 5e4, 6e4};
  const std::vector<double> norms = {1e-4, 1.2e-4, 1.0, 1.1, 1e-2, 1.1e-2};
  const auto bits = cgx_adaptive_bits(sizes, norms);
  EXPECT_EQ(bits, (std::vector<int>{2, 2, 4, 4, 3, 3}));
  EXPECT_EQ(cgx_adaptive_bits({10}, {1}), std::vector<int>{4});
  const std::vector<float> v = {3, -4, 1, 0};
  EXPECT_DOUBLE_EQ(top_k_norm(v.data(), 4, 2), 5.0);
}

TEST(PeerPlans, BytesFollowTheLiveSizes) {
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  PlanInputs in;
  in.layout = &layout;
  in.nodes = 4;
  in.gpus_per_node = 1;
  auto world_bytes = [&](Strategy s) {
    in.run.strategy = s;
    double b = 0;
    for (const auto& c : plan_calls(build_plan(in), {4, 1}, 0)) b += static_cast<double>(c.bytes);
    return b;
  };
  const double d = static_cast<double>(layout.fp32_bytes());
  EXPECT_DOUBLE_EQ(world_bytes(Strategy::ddp), d);
  EXPECT_DOUBLE_EQ(world_bytes(Strategy::fp16), d / 2);
  double kept = 0;
  for (const auto& l : layout.layers) kept += 4.0 * pactrain_kept(l, 0.5);
  EXPECT_DOUBLE_EQ(world_bytes(Strategy::pactrain), kept);
  // cgx: two ring rounds of (M - 1) hops of a quarter of the buffer's wire bytes each.
  double wire = 0;
  for (const auto& l : layout.layers)
    wire += cgx_compresses(l) ? static_cast<double>(cgx_wire_bytes(l.numel(), 4, 1024))
                              : 4.0 * l.numel();
  EXPECT_NEAR(world_bytes(Strategy::cgx), 2 * 3 * wire / 4, 64);
}

// PowerSGD's bytes per step, worked out from the shapes alone as powerSGD_hook.py decides
// them: each gradient as a matrix of shape[0] rows; r = min(rows, cols, rank); it travels as
// r (rows + cols) floats when that times the rate is under rows x cols, whole otherwise.
TEST(PeerPlans, PowerSgdBytesAreTheLowRankClosedForm) {
  for (const std::string model : {"small_cnn", "resnet20", "resnet18"})
    for (int rank : {1, 4})
      for (double rate : {2.0, 100.0}) {
        SCOPED_TRACE(model + " rank " + std::to_string(rank) + " rate " + std::to_string(rate));
        const ModelLayout layout = make_layout(model, 10, 32, 3);
        PlanInputs in;
        in.layout = &layout;
        in.nodes = 2;
        in.gpus_per_node = 2;
        in.run.strategy = Strategy::powersgd;
        in.run.powersgd.matrix_approximation_rank = rank;
        in.run.powersgd.min_compression_rate = rate;
        double want = 0, whole = 0;
        for (const auto& l : layout.layers) {
          const double n = static_cast<double>(l.shape[0]);
          const double m = static_cast<double>(l.numel()) / n;
          const double r = std::min({n, m, static_cast<double>(rank)});
          const bool pays = (n + m) * r * rate < n * m;
          want += 4 * (pays ? r * (n + m) : n * m);
          whole += pays ? 0 : 4 * n * m;
        }
        double got = 0;
        for (const auto& c : plan_calls(build_plan(in), {4, 2}, 0)) {
          EXPECT_EQ(c.group, Group::world);
          EXPECT_EQ(c.op, CollectiveOp::allreduce);
          got += static_cast<double>(c.bytes);
        }
        EXPECT_DOUBLE_EQ(got, want);
        // At rate 2 the factors pay for every weight matrix; at 100 only large ones (none of
        // small_cnn's or resnet20's).
        if (rate == 2.0) {
          EXPECT_LT(got, static_cast<double>(layout.fp32_bytes()));
        }
        // The 1-D tensors (biases, batch norms) never pay: they travel whole.
        EXPECT_GT(whole, 0);
      }
  // small_cnn at rank 1 and rate 2, by hand (prunex model-info --model small_cnn): the four
  // convolutions 32 x 27, 32 x 288, 64 x 288, 64 x 576 travel as 59, 320, 352 and 640 floats,
  // fc.weight 10 x 64 as 74; the batch norms' 384 floats and fc.bias's 10 whole: 1,839 floats
  // of 66,410.
  const ModelLayout small = make_layout("small_cnn", 10, 32, 3);
  PlanInputs in;
  in.layout = &small;
  in.nodes = 4;
  in.gpus_per_node = 1;
  in.run.strategy = Strategy::powersgd;
  double got = 0;
  for (const auto& c : plan_calls(build_plan(in), {4, 1}, 0)) got += static_cast<double>(c.bytes);
  EXPECT_DOUBLE_EQ(got, 1839.0 * 4);
}

}  // namespace
}  // namespace prunex
