// Primal and dual residuals of H-SADMM per layer at both levels (paper text after eq. (13))
// and the stopping test of Boyd et al. 2011 Section 3.3.1, eq. (3.12).
//
// Every rank fills a ResidualPartials with squared norms of its own buffers; the caller
// all-reduces data() with SUM over the WORLD (a flat double array, layer-major, kFields per
// layer), and evaluate_residuals() turns the sums into norms, tolerances and the decision.
//
// Which rank adds what (the sums then equal Boyd's stacked vectors):
//   every rank (i, j) calls add_intra(layer, theta_ij, z_i^{k+1}, z_i^k, u_ij^{k+1}):
//     intra_primal  += ||theta_ij - z_i^{k+1}||^2        -> r_intra   = sqrt(sum)
//     intra_x       += ||theta_ij||^2                    -> ||Ax||    = sqrt(sum)
//     intra_z       += ||z_i^{k+1}||^2 (P copies/node)   -> ||Bz||    = sqrt(sum)
//     intra_zstep   += ||z_i^{k+1} - z_i^k||^2           -> s_intra   = rho1 * sqrt(sum)
//     intra_dual    += ||u_ij^{k+1}||^2                  -> ||A'y||   = rho1 * sqrt(sum)
//     intra_count   += n                                 -> p = n_dual = sum
//   one rank per node (the leader) calls add_inter(layer, z_i^{k+1}, z^{k+1}, z^k, v_i^{k+1}):
//     inter_primal  += ||z_i^{k+1} - z^{k+1}||^2         -> r_inter   = sqrt(sum)
//     inter_x       += ||z_i^{k+1}||^2                   -> ||Ax||
//     inter_z       += ||z^{k+1}||^2 (M copies)          -> ||Bz||
//     inter_dpaper  += ||z_i^{k+1} - z^k||^2             -> s_inter   = rho2 * sqrt(sum)  (paper)
//     inter_dboyd   += ||z^{k+1} - z^k||^2               -> s_inter   = rho2 * sqrt(sum)  (boyd)
//     inter_dual    += ||v_i^{k+1}||^2                   -> ||A'y||   = rho2 * sqrt(sum)
//     inter_count   += n
// Then per level: eps_pri = sqrt(count)*eps_abs + eps_rel*max(||Ax||, ||Bz||),
//                 eps_dual = sqrt(count)*eps_abs + eps_rel*||A'y||,
// and the level has converged when r <= eps_pri and s <= eps_dual. A layer has converged when
// both levels have; the run stops when every layer has. A level nobody added to (e.g. M = 1
// has no inter-node constraint) has all sums 0 and counts as converged.
// Order in an iteration: updates (u, v at k+1) -> partials -> all-reduce -> evaluate with the
// rho used in this iteration -> AdaptivePenalty::update -> rescale u, v.
// Evaluating one rank's partials without the all-reduce gives that rank's own norms (what
// records/run_record.h records per rank).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/hsadmm_config.h"

namespace prunex {

class ResidualPartials {
 public:
  enum Field : int {
    intra_primal,
    intra_x,
    intra_z,
    intra_zstep,
    intra_dual,
    intra_count,
    inter_primal,
    inter_x,
    inter_z,
    inter_dpaper,
    inter_dboyd,
    inter_dual,
    inter_count,
  };
  static constexpr int kFields = 13;

  explicit ResidualPartials(int layers);

  void add_intra(int layer, const float* theta, const float* z_i_new, const float* z_i_old,
                 const float* u_new, int64_t n);
  void add_inter(int layer, const float* z_i_new, const float* z_new, const float* z_old,
                 const float* v_new, int64_t n);

  // Elementwise sum (what the all-reduce does; for threads and tests).
  void add(const ResidualPartials& other);
  void clear();

  int layers() const { return layers_; }
  double get(int layer, Field f) const;
  // The flat array to all-reduce: data()[layer * kFields + field], size() doubles.
  double* data() { return sums_.data(); }
  const double* data() const { return sums_.data(); }
  std::size_t size() const { return sums_.size(); }

 private:
  int layers_;
  std::vector<double> sums_;
};

struct LayerResidualNorms {
  double r_intra = 0, s_intra = 0, r_inter = 0, s_inter = 0;
  double eps_pri_intra = 0, eps_dual_intra = 0, eps_pri_inter = 0, eps_dual_inter = 0;
  bool converged_intra = false, converged_inter = false;
  bool converged() const { return converged_intra && converged_inter; }
};

struct ResidualReport {
  std::vector<LayerResidualNorms> layers;
  bool converged = false;  // every layer converged (Algorithm 1 line 29)
};

// rho1 and rho2 hold one penalty per layer: the ones used in this iteration's updates.
ResidualReport evaluate_residuals(const ResidualPartials& summed, const std::vector<double>& rho1,
                                  const std::vector<double>& rho2, const HsadmmConfig& cfg);

}  // namespace prunex
