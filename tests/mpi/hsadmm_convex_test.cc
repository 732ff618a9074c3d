// H-SADMM on a convex problem with a known optimum, on real ranks: every rank (i, j) holds
// f_ij(W) = 0.5 ||A_ij vec(W) - b_ij||^2 with b_ij = A_ij vec(W*), where W* (out x in) has
// only `keep` nonzero input channels. The constrained optimum is W* itself, so the run must
// recover W*'s channel support, drive the residuals down, and leave every rank with the same z.
// The theta step is solved exactly (Cholesky of A'A + rho1 I) instead of by SGD.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/mpi/mpi_communicator.h"
#include "engine/hsadmm_consensus.h"

namespace prunex {
namespace {

constexpr int kOut = 3, kIn = 8, kKeep = 3, kRows = 20, kN = kOut * kIn;
const int kSupport[kKeep] = {1, 4, 6};

// Solves (G + rho I) x = r for a symmetric positive definite G (n x n), in place in r.
void solve_spd(std::vector<double> g, double rho, std::vector<double>& r, int n) {
  for (int i = 0; i < n; ++i) g[i * n + i] += rho;
  for (int j = 0; j < n; ++j) {  // Cholesky, lower triangle
    for (int k = 0; k < j; ++k) g[j * n + j] -= g[j * n + k] * g[j * n + k];
    g[j * n + j] = std::sqrt(g[j * n + j]);
    for (int i = j + 1; i < n; ++i) {
      for (int k = 0; k < j; ++k) g[i * n + j] -= g[i * n + k] * g[j * n + k];
      g[i * n + j] /= g[j * n + j];
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k) r[i] -= g[i * n + k] * r[k];
    r[i] /= g[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k) r[i] -= g[k * n + i] * r[k];
    r[i] /= g[i * n + i];
  }
}

void run_convex(int gpus_per_node) {
  auto comm = make_mpi_communicator(gpus_per_node);
  ModelLayout layout;
  layout.model = "least_squares";
  layout.layers.push_back({"w", {kOut, kIn, 1, 1}, LayerRole::conv_weight});

  // W*: random entries on the support channels, zero elsewhere (same on every rank).
  std::mt19937 shared(42);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> w_star(kN, 0.0);
  for (int o = 0; o < kOut; ++o)
    for (int c : kSupport) w_star[o * kIn + c] = 1.0 + std::abs(normal(shared));

  // This rank's data: A (kRows x kN), G = A'A, A'b.
  std::mt19937 mine(1000 + comm->world_rank());
  std::vector<double> a(kRows * kN), g(kN * kN, 0.0), atb(kN, 0.0);
  for (auto& x : a) x = normal(mine);
  for (int r = 0; r < kRows; ++r) {
    double b = 0;
    for (int i = 0; i < kN; ++i) b += a[r * kN + i] * w_star[i];
    for (int i = 0; i < kN; ++i) {
      atb[i] += a[r * kN + i] * b;
      for (int j = 0; j < kN; ++j) g[i * kN + j] += a[r * kN + i] * a[r * kN + j];
    }
  }

  HsadmmConfig cfg;
  cfg.rho1 = 1.0;
  cfg.rho2 = 1.0;
  cfg.lambda = 0.0;
  cfg.adaptive_penalty = false;
  cfg.eps_abs = 1e-7;
  cfg.eps_rel = 1e-6;
  SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_count(kKeep), {}, {"w"});
  std::vector<float> theta(kN, 0.0f);
  HsadmmConsensus admm(layout, spec, cfg, int64_t(1) << 20, Strategy::hsadmm, *comm, theta.data());
  NullPhaseTimer timer;

  double first_primal = -1, last_primal = 0;
  for (int k = 1; k <= 300; ++k) {
    // Exact theta step: (A'A + rho1 I) theta = A'b + rho1 (z_i - u).
    std::vector<double> rhs(kN);
    for (int i = 0; i < kN; ++i) rhs[i] = atb[i] + cfg.rho1 * (admm.z_i()[i] - admm.u()[i]);
    solve_spd(g, cfg.rho1, rhs, kN);
    for (int i = 0; i < kN; ++i) theta[i] = static_cast<float>(rhs[i]);
    const ConsensusStep step = admm.step(k, theta.data(), timer);
    const double primal = std::hypot(step.global.layers[0].r_intra, step.global.layers[0].r_inter);
    if (k == 2) first_primal = primal;
    last_primal = primal;
  }

  // Support: exactly the true channels are nonzero in z.
  for (int c = 0; c < kIn; ++c) {
    double norm = 0;
    for (int o = 0; o < kOut; ++o) norm += std::abs(admm.z()[o * kIn + c]);
    const bool in_support = c == kSupport[0] || c == kSupport[1] || c == kSupport[2];
    EXPECT_EQ(norm > 0, in_support) << "channel " << c << " norm " << norm;
  }
  // z reaches W*.
  double err = 0, ref = 0;
  for (int i = 0; i < kN; ++i) {
    err += std::pow(admm.z()[i] - w_star[i], 2);
    ref += w_star[i] * w_star[i];
  }
  EXPECT_LT(std::sqrt(err / ref), 1e-3);
  EXPECT_LT(last_primal, first_primal * 1e-3) << first_primal << " -> " << last_primal;

  // Every rank holds the same z, bit for bit.
  const int n = comm->size(Group::world);
  std::vector<float> all(kN * n);
  comm->allgather(admm.z(), all.data(), kN, DType::f32, Group::world);
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < kN; ++i) ASSERT_EQ(all[r * kN + i], admm.z()[i]) << "rank " << r;
}

TEST(HsadmmConvex, RecoversSparseLeastSquaresOptimumOneRankPerNode) {
  run_convex(1);
}

TEST(HsadmmConvex, RecoversSparseLeastSquaresOptimumTwoRanksPerNode) {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n % 2 != 0) GTEST_SKIP() << "needs an even world size";
  run_convex(2);
}

}  // namespace
}  // namespace prunex
