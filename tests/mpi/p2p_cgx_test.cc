// Point-to-point messages on real MPI ranks (every group of every grouping): a ring exchange
// in both directions with messages of odd sizes arrives whole and in order; and CGX's
// compressed all-reduce over them leaves the same values on every rank, within the bound
// tests/engine/peers_test.cc derives from its quantization steps.
#include <cmath>
#include <random>
#include <vector>

#include "engine/cgx_allreduce.h"
#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

using P2pTest = GroupedTest;

TEST_P(P2pTest, RingExchangeInBothDirectionsArrivesInOrder) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    if (n < 2) continue;
    const int next = (q + 1) % n, prev = (q + n - 1) % n;
    for (std::size_t count : {std::size_t(1), std::size_t(999), std::size_t(1) << 16}) {
      std::vector<int32_t> a(count), b(count + 1), ra(count), rb(count + 1);
      for (std::size_t k = 0; k < count; ++k) a[k] = q * 100000 + static_cast<int32_t>(k);
      for (std::size_t k = 0; k <= count; ++k) b[k] = -q - static_cast<int32_t>(k);
      std::vector<std::unique_ptr<Work>> w;
      w.push_back(comm_->recv(ra.data(), count, DType::i32, prev, g));
      w.push_back(comm_->recv(rb.data(), count + 1, DType::i32, prev, g));
      w.push_back(comm_->send(a.data(), count, DType::i32, next, g));
      w.push_back(comm_->send(b.data(), count + 1, DType::i32, next, g));
      for (auto& x : w) x->wait();
      long wrong = 0;
      for (std::size_t k = 0; k < count; ++k)
        wrong += ra[k] != prev * 100000 + static_cast<int32_t>(k);
      for (std::size_t k = 0; k <= count; ++k) wrong += rb[k] != -prev - static_cast<int32_t>(k);
      EXPECT_EQ(wrong, 0) << group_name(g) << " count " << count;
    }
  }
}

TEST_P(P2pTest, CgxAllreduceIsTheSameEverywhereAndWithinItsBound) {
  const int p = p_, m = world_size() / p_;
  CgxLayerCodec q{true, 4, 256};
  const CgxBufferCodec codec({{0, 5000, q}, {5000, 33, CgxLayerCodec{}}});
  auto input = [&](int rank) {
    std::mt19937_64 gen(7 + rank);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> v(static_cast<std::size_t>(codec.size()));
    for (auto& x : v) x = u(gen);
    return v;
  };
  std::vector<double> exact(static_cast<std::size_t>(codec.size()), 0);
  for (int r = 0; r < world_size(); ++r) {
    const auto v = input(r);
    for (std::size_t i = 0; i < v.size(); ++i) exact[i] += v[i];
  }
  auto x = input(world_rank());
  cgx_allreduce(*comm_, x.data(), codec, {});
  // Same values on every rank: rank 0's broadcast equals everyone's own.
  std::vector<float> r0 = x;
  comm_->broadcast(r0.data(), r0.size(), DType::f32, 0, Group::world);
  EXPECT_EQ(r0, x);
  const double qn = 15;  // 2^4 - 1
  const double e1 = p > 1 ? (2 * p - 1) / qn : 0;
  const double bound = m < 2 ? e1 : m * e1 + (m * (m - 1) / 2.0 + m) * (p + e1) / qn;
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - exact[i]));
  EXPECT_LE(worst, bound * (1 + 1e-4) + 1e-5) << m << " x " << p;
  for (std::size_t i = 5000; i < x.size() && m * p <= 2; ++i)  // fp32 layer: float sums
    EXPECT_NEAR(x[i], exact[i], 1e-5);
}

PRUNEX_INSTANTIATE_GROUPINGS(P2pTest);

}  // namespace
}  // namespace prunex::test
