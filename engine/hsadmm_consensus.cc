#include "engine/hsadmm_consensus.h"

#include <memory>

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/wire_dtype.h"

namespace prunex {

HsadmmConsensus::HsadmmConsensus(const ModelLayout& layout, SparsitySpec spec, HsadmmConfig cfg,
                                 int64_t bucket_bytes, Strategy strategy, Communicator& comm,
                                 const float* theta0, DType wire,
                                 std::unique_ptr<ConsensusMath> math)
    : layout_(layout),
      spec_(std::move(spec)),
      cfg_(cfg),
      bucket_bytes_(bucket_bytes),
      strategy_(strategy),
      comm_(comm),
      math_(math ? std::move(math) : make_host_consensus_math()),
      penalty_(static_cast<int>(layout.layers.size()), cfg),
      freezer_(cfg),
      global_mask_(layout, spec_),
      wire_(wire) {
  PRUNEX_USAGE(is_consensus(strategy),
               "the consensus runs hsadmm, hsadmm-flat or hsadmm-rail, not ",
               strategy_name(strategy));
  PRUNEX_USAGE(wire == DType::f32 || (!flat() && is_wire_dtype(wire)), "--wire-dtype ",
               dtype_name(wire), " applies to hsadmm and hsadmm-rail only");
  PRUNEX_CHECK(math_->space() == comm.memory_space(),
               "the consensus math and the communicator work in different memory spaces");
  for (const auto& l : layout.layers) {
    offset_.push_back(n_);
    n_ += l.numel();
  }
  offset_.push_back(n_);
  for (auto* b : {&u_, &v_, &buf_, &zi_, &zi_prev_, &z_, &z_prev_})
    *b = math_->memory().alloc(n_ * 4);
  math_->memory().copy(zi_.as<float>(), theta0, n_ * 4);
  math_->memory().copy(z_.as<float>(), theta0, n_ * 4);
  sums_ = math_->memory().alloc(static_cast<int64_t>(layout.layers.size()) *
                                ResidualPartials::kFields * 8);
  bytes_ = math_->memory().alloc(static_cast<int64_t>(global_mask_.bit_bytes()));
}

void HsadmmConsensus::add_proximal(int l, float* grad, const float* theta) const {
  math_->add_proximal(grad, theta, at(zi_, l), at(u_, l), penalty_.rho1(l),
                      layout_.layers[l].numel());
}

void HsadmmConsensus::add_proximal_all(const std::vector<float*>& grads,
                                       const std::vector<const float*>& thetas) const {
  PRUNEX_CHECK(grads.size() == layout_.layers.size() && thetas.size() == grads.size(),
               "add_proximal_all: ", grads.size(), " gradients and ", thetas.size(),
               " parameters for ", layout_.layers.size(), " layers");
  std::vector<ConsensusMath::ProximalTerm> terms;
  terms.reserve(grads.size());
  for (size_t l = 0; l < grads.size(); ++l)
    terms.push_back({grads[l], thetas[l], at(zi_, static_cast<int>(l)), at(u_, static_cast<int>(l)),
                     penalty_.rho1(static_cast<int>(l)), layout_.layers[l].numel()});
  math_->add_proximal_layers(terms);
}

std::vector<float> HsadmmConsensus::host_copy(const SpaceBuffer& b) const {
  std::vector<float> out(n_);
  math_->memory().to_host(out.data(), b.as<float>(), n_ * 4);
  return out;
}

void HsadmmConsensus::load_buffer(SpaceBuffer& b, const std::vector<float>& host) {
  math_->memory().from_host(b.as<float>(), host.data(), n_ * 4);
}

void HsadmmConsensus::host_bytes_collective(std::vector<uint8_t>& bytes, bool unite) {
  const auto n = static_cast<int64_t>(bytes.size());
  math_->memory().from_host(bytes_.as<void>(), bytes.data(), n);
  if (unite)
    comm_.allreduce(bytes_.as<void>(), bytes.size(), DType::u8, ReduceOp::bor, Group::inter);
  else
    comm_.broadcast(bytes_.as<void>(), bytes.size(), DType::u8, 0, Group::intra);
  math_->memory().to_host(bytes.data(), bytes_.as<void>(), n);
}

ConsensusStep HsadmmConsensus::step(int k, const float* theta, PhaseTimer& timer) {
  const int L = static_cast<int>(layout_.layers.size());
  const int M = flat() ? 1 : comm_.grouping().nodes();
  const int P = flat() ? comm_.size(Group::world) : comm_.grouping().gpus_per_node;
  ConsensusStep out;
  out.rho1 = penalty_.rho1();
  out.rho2 = penalty_.rho2();

  // Phase 2: consensus inside the node (flat: the world), eq. 9.
  timer.time(Phase::dual_update,
             [&] { math_->theta_plus_u(theta, u_.as<float>(), buf_.as<float>(), n_); });
  timer.fence(comm_);
  timer.time(flat() ? Phase::allreduce : Phase::intra_allreduce, [&] {
    comm_.allreduce(buf_.as<float>(), n_, DType::f32, ReduceOp::sum,
                    flat() ? Group::world : Group::intra);
  });
  timer.fence(comm_);
  math_->memory().copy(zi_prev_.as<float>(), zi_.as<float>(), n_ * 4);
  math_->memory().copy(z_prev_.as<float>(), z_.as<float>(), n_ * 4);
  timer.time(Phase::dual_update, [&] {
    for (int l = 0; l < L; ++l) {
      CandidateParams cp{penalty_.rho1(l), flat() ? 0.0 : penalty_.rho2(l), cfg_.lambda, M, P};
      math_->node_candidate(at(buf_, l), at(z_, l), at(v_, l), cp, at(zi_, l),
                            layout_.layers[l].numel());
    }
  });

  // Phase 3: projection (eq. 10), or the frozen mask (Algorithm 1 line 11).
  ModelMask node_mask;
  timer.time(Phase::projection, [&] {
    std::vector<float*> w(L);
    for (int l = 0; l < L; ++l) w[l] = at(zi_, l);
    if (freezer_.frozen()) {
      math_->apply_mask(w.data(), global_mask_);
      node_mask = global_mask_;
    } else {
      node_mask = math_->project(w.data(), layout_, spec_);
    }
  });

  if (flat()) {
    math_->memory().copy(z_.as<float>(), zi_.as<float>(), n_ * 4);
    global_mask_ = node_mask;
  } else {
    out.payload_mask = inter_node_consensus(k, node_mask, timer);
    for (int l = 0; l < L; ++l) out.payload_density.push_back(out.payload_mask[l].density());
  }

  // Phase 5: duals (eqs. 12, 13), residuals, penalties, stopping test.
  ResidualPartials partials(L);
  const auto sums_bytes = static_cast<int64_t>(partials.size() * sizeof(double));
  timer.time(Phase::dual_update, [&] {
    math_->duals(u_.as<float>(), flat() ? nullptr : v_.as<float>(), theta, zi_.as<float>(),
                 z_.as<float>(), n_);
    ResidualInputs in;
    in.offset = &offset_;
    in.theta = theta;
    in.z_i = zi_.as<float>();
    in.z_i_prev = zi_prev_.as<float>();
    in.u = u_.as<float>();
    in.inter = !flat() && comm_.is_leader();
    in.z = z_.as<float>();
    in.z_prev = z_prev_.as<float>();
    in.v = v_.as<float>();
    math_->residual_partials(in, sums_.as<double>());
    math_->memory().to_host(partials.data(), sums_.as<double>(), sums_bytes);
  });
  out.mine = evaluate_residuals(partials, out.rho1, out.rho2, cfg_);
  comm_.allreduce(sums_.as<double>(), partials.size(), DType::f64, ReduceOp::sum, Group::world);
  math_->memory().to_host(partials.data(), sums_.as<double>(), sums_bytes);
  out.global = evaluate_residuals(partials, out.rho1, out.rho2, cfg_);
  timer.time(Phase::dual_update, [&] {
    const auto changes = penalty_.update(out.global);
    for (int l = 0; l < L; ++l) {
      if (changes[l].u_factor != 1.0)
        math_->rescale(at(u_, l), changes[l].u_factor, layout_.layers[l].numel());
      if (!flat() && changes[l].v_factor != 1.0)
        math_->rescale(at(v_, l), changes[l].v_factor, layout_.layers[l].numel());
    }
  });
  out.frozen = freezer_.frozen();
  for (int l = 0; l < L; ++l) out.mask_density.push_back(global_mask_[l].density());
  return out;
}

void HsadmmConsensus::save_state(StateSections& s) const {
  put_state(s, "consensus/z_i", host_copy(zi_));
  put_state(s, "consensus/z", host_copy(z_));
  put_state(s, "consensus/u", host_copy(u_));
  put_state(s, "consensus/v", host_copy(v_));
  put_state(s, "consensus/rho1", penalty_.rho1());
  put_state(s, "consensus/rho2", penalty_.rho2());
  put_state(s, "consensus/global_mask", global_mask_.to_bits());
  put_state_value<uint8_t>(s, "consensus/frozen_two_back", frozen_two_back_);
  freezer_.save_state(s, "consensus/freezer/");
}

void HsadmmConsensus::load_state(const StateSections& s) {
  load_buffer(zi_, get_state<float>(s, "consensus/z_i", n_));
  load_buffer(z_, get_state<float>(s, "consensus/z", n_));
  load_buffer(u_, get_state<float>(s, "consensus/u", n_));
  load_buffer(v_, get_state<float>(s, "consensus/v", n_));
  const int64_t L = static_cast<int64_t>(layout_.layers.size());
  penalty_.restore(get_state<double>(s, "consensus/rho1", L),
                   get_state<double>(s, "consensus/rho2", L));
  const auto bits = get_state<uint8_t>(s, "consensus/global_mask",
                                       static_cast<int64_t>(global_mask_.bit_bytes()));
  global_mask_.from_bits(bits.data(), bits.size());
  frozen_two_back_ = get_state_value<uint8_t>(s, "consensus/frozen_two_back") != 0;
  freezer_.load_state(s, "consensus/freezer/");
  // The compaction plan kept while the mask is frozen is a function of that mask.
  if (frozen_two_back_) {
    compaction_ = std::make_unique<CompactionPlan>(layout_, global_mask_, bucket_bytes_);
    make_buckets();
  }
}

void HsadmmConsensus::restart_from_consensus() {
  const std::vector<float> z = host_copy(z_);
  load_buffer(zi_, z);
  load_buffer(zi_prev_, z);
  load_buffer(z_prev_, z);
  const std::vector<float> zero(z.size(), 0.0f);
  load_buffer(u_, zero);
  load_buffer(v_, zero);
}

}  // namespace prunex
