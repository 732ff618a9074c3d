#include "workloads/train/sgd_step.h"

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/error.h"

namespace prunex {

namespace {
template <typename Key>
Key key_of(void* impl) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << impl;
    return text.str();
  } else {
    return impl;
  }
}
}  // namespace

OptimizerStateKey optimizer_state_key(const torch::Tensor& p) {
  return key_of<OptimizerStateKey>(static_cast<void*>(p.unsafeGetTensorImpl()));
}

// torch::optim::SGD::step (LibTorch 1.13 and 2.x): d = grad + weight_decay * p; the momentum
// buffer is a copy of d at a parameter's first step, then buf = momentum * buf +
// (1 - dampening) * d, and d = buf; p -= lr * d.
void sgd_step_foreach(torch::optim::SGD& opt) {
  torch::NoGradGuard no_grad;
  auto& state = opt.state();
  for (auto& group : opt.param_groups()) {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
    PRUNEX_CHECK(!o.nesterov(), "sgd_step has no Nesterov momentum");
    std::vector<torch::Tensor> params, grads;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      grads.push_back(p.grad());
    }
    if (params.empty()) continue;
    std::vector<torch::Tensor> d =
        o.weight_decay() != 0 ? torch::_foreach_add(grads, params, o.weight_decay()) : grads;
    if (o.momentum() != 0) {
      std::vector<torch::Tensor> bufs, bufs_d;
      for (size_t i = 0; i < params.size(); ++i) {
        const OptimizerStateKey key = optimizer_state_key(params[i]);
        auto it = state.find(key);
        if (it == state.end()) {
          auto st = std::make_unique<torch::optim::SGDParamState>();
          st->momentum_buffer(torch::clone(d[i]).detach());
          d[i] = st->momentum_buffer();
          state[key] = std::move(st);
        } else {
          torch::Tensor buf =
              static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
          bufs.push_back(buf);
          bufs_d.push_back(d[i]);
          d[i] = buf;
        }
      }
      if (!bufs.empty()) {
        torch::_foreach_mul_(bufs, o.momentum());
        torch::_foreach_add_(bufs, bufs_d, 1 - o.dampening());
      }
    }
    torch::_foreach_add_(params, d, -o.lr());
  }
}

}  // namespace prunex
