// H-SADMM on live ranks: phase 1 (local SGD epochs with the proximal term of eq. 8) here,
// phases 2-5 in engine/hsadmm_consensus (shared with the convex test on real ranks).
#include "engine/error.h"
#include "engine/hsadmm_consensus.h"
#include "engine/phases.h"
#include "engine/wire_dtype.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/local_steps.h"

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
  h.t_freeze = c.hsadmm.t_freeze > 0 ? c.hsadmm.t_freeze : -1;
  h.freeze_after_stable = c.freeze_after;
  h.check();
  return h;
}

// theta: every parameter end to end, on the parameters' device.
torch::Tensor initial_theta(const TrainSetup& s) {
  torch::Tensor t = torch::empty({s.flat.total}, torch::TensorOptions().device(s.device));
  params_to_flat(s.params, s.flat, t);
  device_sync(s);  // the consensus math reads it on its own stream
  return t;
}

std::unique_ptr<ConsensusMath> consensus_math(const TrainSetup& s) {
  return s.backend.consensus_math ? s.backend.consensus_math() : nullptr;
}

class HsadmmStrategy : public LiveStrategy {
 public:
  HsadmmStrategy(TrainSetup& s, Communicator& comm, Strategy strategy)
      : s_(s),
        comm_(comm),
        theta_(initial_theta(s)),
        consensus_(s.layout,
                   SparsitySpec::build(s.layout, parse_sparsity_kinds(s.cfg.hsadmm.sparsity),
                                       KeepRate::of_fraction(s.cfg.hsadmm.keep)),
                   admm_config(s.cfg), bucket_bytes(s.cfg.hsadmm), strategy, comm,
                   theta_.data_ptr<float>(), s.cfg.hsadmm.wire_dtype, consensus_math(s)),
        eval_(make_model(s.cfg.model, s.cfg.classes, s.layout.input_channels)) {
    eval_->to(s.device);
    eval_params_ = parameters_in_layout_order(*eval_, s.layout);
    consensus_.set_pipelined(s.cfg.hsadmm.pipeline_buckets);
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    LocalIteration out;
    const int L = static_cast<int>(s_.params.size());
    // Once the mask is frozen, local training runs on the fixed sparse manifold (paper
    // section 4.5): the mask is applied to theta after every step, as to z_i.
    const bool masked = consensus_.frozen() && s_.cfg.masked_retraining;
    out.loss = run_local_steps(
        s_, clock,
        [&] {
          clock.time(Phase::local_compute, [&] {
            device_sync(s_);  // the gradients LibTorch wrote
            std::vector<float*> grads(L);
            std::vector<const float*> thetas(L);
            for (int l = 0; l < L; ++l) {
              grads[l] = s_.params[l].mutable_grad().data_ptr<float>();
              thetas[l] = s_.params[l].data_ptr<float>();
            }
            consensus_.add_proximal_all(grads, thetas);
          });
        },
        [&] {
          if (!masked) return;
          clock.time(Phase::local_compute, [&] {
            device_sync(s_);
            std::vector<float*> w;
            for (auto& p : s_.params) w.push_back(p.data_ptr<float>());
            consensus_.math().apply_mask(w.data(), consensus_.global_mask());
          });
        });
    // --sync-phases: ranks that finished their local steps early do not time the consensus
    // against the others' compute.
    clock.fence(comm_);
    clock.time(Phase::dual_update, [&] {
      params_to_flat(s_.params, s_.flat, theta_);
      device_sync(s_);
    });
    const ConsensusStep step = consensus_.step(k, theta_.data_ptr<float>(), clock);
    check_finite(flat_view(s_, consensus_.z(), s_.flat.total), s_.flat, s_.layout, "z", k);

    for (int l = 0; l < L; ++l) {
      const auto& r = step.mine.layers[l];
      out.residuals.push_back({r.r_intra, r.s_intra, r.r_inter, r.s_inter});
      out.rho.emplace_back(step.rho1[l],
                           consensus_.strategy() == Strategy::hsadmm_flat ? 0.0 : step.rho2[l]);
      if (!consensus_.global_mask().pruned(l)) continue;
      const std::string& name = s_.layout.layers[l].name;
      out.density[name] = step.mask_density[l];
      if (!step.payload_density.empty()) out.payload_density[name] = step.payload_density[l];
    }
    out.payload_mask = step.payload_mask;
    out.converged = step.global.converged;
    out.frozen = step.frozen;
    // Flat: the world all-reduce carries the dense buffer, which is also its dense size;
    // rail: each rank's inter-node share is 1/P of it.
    out.dense_inter_bytes = static_cast<double>(consensus_.dense_bytes());
    if (consensus_.strategy() == Strategy::hsadmm_rail)
      out.dense_inter_bytes /= comm_.grouping().gpus_per_node;
    return out;
  }

  nlohmann::json masks() const override {
    nlohmann::json layers = nlohmann::json::object();
    const ModelMask& m = consensus_.global_mask();
    for (size_t l = 0; l < m.size(); ++l) {
      if (!m.pruned(l)) continue;
      layers[s_.layout.layers[l].name] = {{"shape", s_.layout.layers[l].shape},
                                          {"keep_out", m[l].keep_out},
                                          {"keep_in", m[l].keep_in}};
    }
    return {{"layers", layers}};
  }

  void save_state(StateSections& s) const override { consensus_.save_state(s); }
  void load_state(const StateSections& s) override { consensus_.load_state(s); }
  // Another shape: theta and the node variables restart at z, the duals at zero.
  void restart_rank_state() override {
    consensus_.restart_from_consensus();
    flat_to_params(flat_view(s_, consensus_.z(), s_.flat.total), s_.flat, s_.params);
  }

  torch::nn::Module& eval_model() override {
    flat_to_params(flat_view(s_, consensus_.z(), s_.flat.total), s_.flat, eval_params_);
    recalibrate_bn(*eval_, s_, s_.control(), 20);
    return *eval_;
  }

 private:
  TrainSetup& s_;
  Communicator& comm_;
  torch::Tensor theta_;
  HsadmmConsensus consensus_;
  ModelHandle eval_;
  std::vector<torch::Tensor> eval_params_;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_live_strategy(TrainSetup& s, Communicator& comm) {
  switch (s.cfg.strategy) {
    case Strategy::hsadmm:
    case Strategy::hsadmm_flat:
    case Strategy::hsadmm_rail:
      return make_hsadmm(s, comm, s.cfg.strategy);
    case Strategy::ddp:
    case Strategy::fp16:
    case Strategy::pactrain:
    case Strategy::cgx:
    case Strategy::powersgd:
      return make_ddp(s, comm);
    case Strategy::topk:
      return make_topk(s, comm);
  }
  return nullptr;
}

std::unique_ptr<LiveStrategy> make_hsadmm(TrainSetup& s, Communicator& comm, Strategy strategy) {
  return std::make_unique<HsadmmStrategy>(s, comm, strategy);
}

}  // namespace prunex
