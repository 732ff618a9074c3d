// H-SADMM (Algorithm 1) on live ranks, and its flat variant PruneX (AR).
//
// hierarchical: local SGD with the proximal term (eq. 8) -> intra-node SUM of theta + u ->
// z~_i (eq. 9) -> projection (eq. 10) or frozen mask -> leaders: mask union (eq. 14, one
// bitwise-OR all-reduce), pack z_i + v_i by the union mask, bucketed inter-node all-reduce,
// -> intra-node broadcast of the union mask and the compact buckets -> every rank unpacks z
// (eq. 11) -> duals (eqs. 12, 13), residuals, adaptive rho, stopping test.
// flat: every rank all-reduces dense theta + u over the world, z = projection of the
// candidate, u += theta - z (one consensus level, no leaders, no shrinkage).
#include <cstring>

#include "engine/compaction.h"
#include "engine/hsadmm_config.h"
#include "engine/hsadmm_updates.h"
#include "engine/mask.h"
#include "engine/mask_freeze.h"
#include "engine/penalty.h"
#include "engine/projection.h"
#include "engine/residuals.h"
#include "engine/sparsity_spec.h"
#include "workloads/train/live_strategy.h"

namespace prunex {
namespace {

HsadmmConfig admm_config(const TrainConfig& c) {
  HsadmmConfig h;
  h.rho1 = c.rho1;
  h.rho2 = c.rho2;
  h.rho1_max = c.rho1_cap;
  h.rho2_max = c.rho2_cap;
  h.lambda = c.lambda;
  h.eps_abs = c.eps_abs;
  h.eps_rel = c.eps_rel;
  h.adaptive_penalty = c.adaptive_rho;
  h.t_freeze = c.t_freeze > 0 ? c.t_freeze : -1;
  h.freeze_after_stable = c.freeze_after;
  h.validate();
  return h;
}

class HsadmmStrategy : public LiveStrategy {
 public:
  HsadmmStrategy(TrainSetup& s, Communicator& comm, bool flat)
      : s_(s),
        comm_(comm),
        flat_(flat),
        cfg_(admm_config(s.cfg)),
        spec_(SparsitySpec::build(s.layout, parse_sparsity_kinds(s.cfg.sparsity),
                                  KeepRate::of_fraction(s.cfg.keep))),
        penalty_(static_cast<int>(s.layout.layers.size()), cfg_),
        freezer_(cfg_),
        global_mask_(s.layout, spec_),
        n_(s.flat.total) {
    for (auto* b : {&theta_, &u_, &v_, &zi_, &zi_prev_, &z_, &z_prev_, &buf_}) b->assign(n_, 0.f);
    // Algorithm 1 line 1: z_i = z = theta^0 (identical on every rank), duals zero.
    params_to_flat(s.params, s.flat, theta_.data());
    zi_ = theta_;
    z_ = theta_;
    eval_ = make_model(s.cfg.model, s.cfg.classes, s.layout.input_channels);
    eval_params_ = parameters_in_layout_order(*eval_, s.layout);
    bucket_bytes_ = static_cast<int64_t>(s.cfg.bucket_mib * (1 << 20));
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    LocalIteration out;
    const auto& fl = s_.flat;
    const int L = static_cast<int>(fl.layers());
    const int M = flat_ ? 1 : comm_.grouping().nodes();
    const int P = flat_ ? comm_.size(Group::world) : comm_.grouping().gpus_per_node;
    const Group consensus_group = flat_ ? Group::world : Group::intra;

    // Phase 1: local epochs with the proximal term of eq. 8 added to every gradient.
    double loss = 0;
    for (int e = 0; e < s_.cfg.local_epochs; ++e)
      loss = run_epoch(s_, static_cast<int64_t>(k - 1) * s_.cfg.local_epochs + e, clock, [&] {
        clock.time(phase::local_compute, [&] {
          for (int l = 0; l < L; ++l) {
            auto& p = s_.params[l];
            add_proximal_gradient(p.mutable_grad().data_ptr<float>(), p.data_ptr<float>(),
                                  zi_.data() + fl.offset[l], u_.data() + fl.offset[l],
                                  penalty_.rho1(l), fl.numel[l]);
          }
        });
      });
    out.loss = loss;

    // Phase 2: intra-node consensus (flat: world), eq. 9.
    clock.time(phase::dual_update, [&] {
      params_to_flat(s_.params, fl, theta_.data());
      theta_plus_u(theta_.data(), u_.data(), buf_.data(), n_);
    });
    clock.time(flat_ ? phase::allreduce : phase::intra_allreduce, [&] {
      comm_.allreduce(buf_.data(), n_, DType::f32, ReduceOp::sum, consensus_group);
    });
    zi_prev_ = zi_;
    z_prev_ = z_;
    clock.time(phase::dual_update, [&] {
      for (int l = 0; l < L; ++l) {
        CandidateParams cp{penalty_.rho1(l), flat_ ? 0.0 : penalty_.rho2(l), cfg_.lambda, M, P};
        node_candidate(buf_.data() + fl.offset[l], z_.data() + fl.offset[l],
                       v_.data() + fl.offset[l], cp, zi_.data() + fl.offset[l], fl.numel[l]);
      }
    });

    // Phase 3: projection (eq. 10), or the frozen mask (Algorithm 1 line 11).
    ModelMask node_mask;
    clock.time(phase::projection, [&] {
      std::vector<float*> w(L);
      for (int l = 0; l < L; ++l) w[l] = zi_.data() + fl.offset[l];
      if (freezer_.frozen()) {
        for (int l = 0; l < L; ++l)
          if (global_mask_.pruned(l)) apply_mask(w[l], global_mask_[l]);
        node_mask = global_mask_;
      } else {
        node_mask = project_model(w.data(), s_.layout, spec_);
      }
    });

    if (flat_) {
      // One level: z is the projected candidate itself, identical on every rank.
      z_ = zi_;
      global_mask_ = node_mask;
    } else {
      inter_node_consensus(k, node_mask, clock);
    }
    check_finite(z_.data(), fl, s_.layout, "z", k);

    // Phase 5: duals, residuals, adaptive penalties, stopping test.
    ResidualPartials partials(L);
    clock.time(phase::dual_update, [&] {
      for (int l = 0; l < L; ++l) {
        const int64_t o = fl.offset[l], n = fl.numel[l];
        if (!flat_) update_v(v_.data() + o, zi_.data() + o, z_.data() + o, n);
        update_u(u_.data() + o, theta_.data() + o, zi_.data() + o, n);
        partials.add_intra(l, theta_.data() + o, zi_.data() + o, zi_prev_.data() + o,
                           u_.data() + o, n);
        if (!flat_ && comm_.is_leader())
          partials.add_inter(l, zi_.data() + o, z_.data() + o, z_prev_.data() + o,
                             v_.data() + o, n);
      }
    });
    const ResidualReport mine = evaluate_residuals(partials, penalty_.rho1(), penalty_.rho2(), cfg_);
    ResidualPartials summed = partials;
    comm_.allreduce(summed.data(), summed.size(), DType::f64, ReduceOp::sum, Group::world);
    const ResidualReport report = evaluate_residuals(summed, penalty_.rho1(), penalty_.rho2(), cfg_);
    for (int l = 0; l < L; ++l) {
      const auto& r = mine.layers[l];
      out.residuals.push_back({r.r_intra, r.s_intra, r.r_inter, r.s_inter});
      out.rho.emplace_back(penalty_.rho1(l), flat_ ? 0.0 : penalty_.rho2(l));
    }
    clock.time(phase::dual_update, [&] {
      const auto changes = penalty_.update(report);
      for (int l = 0; l < L; ++l) {
        rescale_dual(u_.data() + fl.offset[l], changes[l].u_factor, fl.numel[l]);
        if (!flat_) rescale_dual(v_.data() + fl.offset[l], changes[l].v_factor, fl.numel[l]);
      }
    });
    out.converged = report.converged;
    for (int l = 0; l < L; ++l)
      if (global_mask_.pruned(l)) out.density[s_.layout.layers[l].name] = global_mask_[l].density();
    out.frozen = freezer_.frozen();
    out.dense_inter_bytes = flat_ ? 0.0 : static_cast<double>(n_) * 4;
    return out;
  }

  torch::nn::Module& eval_model() override {
    flat_to_params(z_.data(), s_.flat, eval_params_);
    recalibrate_bn(*eval_, s_, comm_, 20);
    return *eval_;
  }

 private:
  // Phase 4 (leaders) and the intra-node broadcast that ends it.
  void inter_node_consensus(int k, const ModelMask& node_mask, PhaseClock& clock) {
    const auto& fl = s_.flat;
    const int L = static_cast<int>(fl.layers());
    const int M = comm_.grouping().nodes();
    std::vector<uint8_t> bits(global_mask_.bit_bytes());
    if (comm_.is_leader()) {
      if (!freezer_.frozen()) {
        clock.time(phase::mask_sync, [&] {
          node_mask.to_bits(bits.data());
          comm_.allreduce(bits.data(), bits.size(), DType::u8, ReduceOp::bor, Group::inter);
        });
        global_mask_.from_bits(bits.data(), bits.size());
      }
      global_mask_.to_bits(bits.data());
    }
    // Every rank of the node learns the union mask from its leader.
    clock.time(phase::broadcast, [&] {
      comm_.broadcast(bits.data(), bits.size(), DType::u8, 0, Group::intra);
    });
    global_mask_.from_bits(bits.data(), bits.size());
    const bool was_frozen = freezer_.frozen();
    if (!was_frozen) freezer_.observe(k, bits);

    std::unique_ptr<CompactionPlan> plan;
    std::unique_ptr<BucketSet> buckets;
    clock.time(phase::pack, [&] {
      plan = std::make_unique<CompactionPlan>(s_.layout, global_mask_, bucket_bytes_);
      buckets = std::make_unique<BucketSet>(*plan);
    });
    std::vector<const float*> zp(L), vp(L);
    std::vector<float*> outp(L);
    for (int l = 0; l < L; ++l) {
      zp[l] = zi_.data() + fl.offset[l];
      vp[l] = v_.data() + fl.offset[l];
      outp[l] = z_.data() + fl.offset[l];
    }
    if (comm_.is_leader()) {
      clock.time(phase::pack, [&] { pack(*plan, zp.data(), vp.data(), buckets->data()); });
      clock.time(phase::inter_allreduce, [&] {
        for (int b = 0; b < buckets->size(); ++b)
          comm_.allreduce(buckets->bucket(b), buckets->floats(b), DType::f32, ReduceOp::sum,
                          Group::inter);
      });
    }
    clock.time(phase::broadcast, [&] {
      for (int b = 0; b < buckets->size(); ++b)
        comm_.broadcast(buckets->bucket(b), buckets->floats(b), DType::f32, 0, Group::intra);
    });
    // Eq. 11: the average of z_i + v_i over the M nodes, zeros outside the union mask.
    clock.time(phase::unpack, [&] {
      unpack(*plan, buckets->data(), outp.data(), 1.0f / static_cast<float>(M));
    });
    if (!was_frozen && freezer_.frozen()) {
      // The mask that retraining keeps is the projection of the global z: identical on every
      // rank (z is) and exactly the configured keep rate, where the union of node masks
      // (eq. 14) can keep more groups while the nodes still disagree.
      clock.time(phase::projection, [&] {
        global_mask_ = project_model(outp.data(), s_.layout, spec_);
      });
    }
  }

  TrainSetup& s_;
  Communicator& comm_;
  bool flat_;
  HsadmmConfig cfg_;
  SparsitySpec spec_;
  AdaptivePenalty penalty_;
  MaskFreezer freezer_;
  ModelMask global_mask_;
  int64_t n_;
  int64_t bucket_bytes_ = 0;
  std::vector<float> theta_, u_, v_, zi_, zi_prev_, z_, z_prev_, buf_;
  ModelHandle eval_;
  std::vector<torch::Tensor> eval_params_;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_hsadmm(TrainSetup& s, Communicator& comm, bool flat) {
  return std::make_unique<HsadmmStrategy>(s, comm, flat);
}

}  // namespace prunex
