// The per-element updates of H-SADMM (paper eqs. (8)-(13), Algorithm 1) on one layer's
// float buffer of n elements. No communication here: where the algorithm sums over ranks
// (eq. (9): sum over the P ranks of a node; eq. (11): sum over the M node leaders) the caller
// does the all-reduce and passes the reduced buffer in. All buffers have n elements and may
// not overlap unless stated.
#pragma once

#include <cstdint>

namespace prunex {

// Eq. (8), extra gradient term of the local (theta) step:
//   grad += rho1 * (theta - z_i + u).
void add_proximal_gradient(float* grad, const float* theta, const float* z_i, const float* u,
                           double rho1, int64_t n);

// The proximal penalty value (rho1/2) * ||theta - z_i + u||^2 (eq. (7)), for logging losses.
double proximal_penalty(const float* theta, const float* z_i, const float* u, double rho1,
                        int64_t n);

// Algorithm 1 line 6: buf = theta + u (the caller then all-reduces buf with SUM over the
// intra-node group). buf may alias theta or u.
void theta_plus_u(const float* theta, const float* u, float* buf, int64_t n);

// Coefficients of the node-level candidate, eq. (9).
struct CandidateParams {
  double rho1 = 0, rho2 = 0;
  double lambda = 0;       // weight decay of eq. (5)
  int nodes = 1;           // M
  int ranks_per_node = 1;  // P
};

// gamma = lambda/M + P*rho1 + rho2. The exact minimiser of eq. (6) over z_i has P*rho1
// (one rho1 term per rank j); the paper's text after eq. (9) writes rho1, which would make
// the fixed point solve a different problem whenever P > 1 (tests: hsadmm_updates_test.cc,
// PaperPrintedGammaMovesTheOptimum).
double candidate_gamma(const CandidateParams& p);

// Eq. (9), the dense node candidate before projection:
//   out = (rho1 * sum_theta_plus_u + rho2 * (z - v_i)) / gamma
// sum_theta_plus_u is the intra-node SUM of theta_{i,j} + u_{i,j} over the node's P ranks.
// z is the global consensus z^k: the minimiser of eq. (6) and Algorithm 1 line 8
// (UpdateIntra(z~, z, v_i)) use z; the paper's eq. (9) prints z_i^k, which is not the
// minimiser. out may alias sum_theta_plus_u.
void node_candidate(const float* sum_theta_plus_u, const float* z, const float* v_i,
                    const CandidateParams& p, float* out, int64_t n);

// Algorithm 1 line 11 (frozen masks): z_i = z~ (.) m, in place. mask holds one byte per
// element, nonzero = kept. (Eq. (10) with live projection is the sparsity engine's job.)
void apply_mask(float* z, const uint8_t* mask, int64_t n);

// Algorithm 1 line 19: buf = z_i + v_i (the leader then all-reduces it over the inter-node
// group, compacted or not). buf may alias z_i or v_i.
void z_plus_v(const float* z_i, const float* v_i, float* buf, int64_t n);

// Eq. (11): z = (1/M) * sum_i (z_i + v_i). Given the SUM, divides by M in place.
void global_z_from_sum(float* sum_z_plus_v, int nodes, int64_t n);

// Eq. (12): u += theta - z_i (z_i is the new z_i^{k+1}).
void update_u(float* u, const float* theta, const float* z_i, int64_t n);

// Eq. (13): v += z_i - z (both new, k+1). Eq. (9) needs v_i on every rank of node i; since
// every rank holds z_i^{k+1} and (after the broadcast) z^{k+1}, each can run this locally and
// v_i stays identical across the node without being sent.
void update_v(float* v, const float* z_i, const float* z, int64_t n);

// Scaled duals are y/rho: when rho changes from old to new, u (or v) must be multiplied by
// old/new (Boyd et al. 2011 Section 3.4.1). factor = AdaptivePenalty's reported factor.
void rescale_dual(float* dual, double factor, int64_t n);

}  // namespace prunex
