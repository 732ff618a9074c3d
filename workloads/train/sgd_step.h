// The SGD step of the live trainer's optimiser, and the optimiser's state keys.
// LibTorch code: include only from workloads/train/*.cc (and tests).
#pragma once

#include <torch/torch.h>

#include <type_traits>
#include <utility>

namespace prunex {

// The optimiser's state map key of parameter p: its TensorImpl's address, as text in LibTorch
// 1.13 and as the pointer itself in 2.x (checkpoints find the momentum buffers by it).
using OptimizerStateKey =
    std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;
OptimizerStateKey optimizer_state_key(const torch::Tensor& p);

// torch::optim::SGD::step's arithmetic with LibTorch's multi-tensor (_foreach) ops: a few
// kernel launches for all parameters instead of three or four per parameter (PyTorch's Python
// SGD does the same on CUDA, foreach=True). The momentum buffers stay in the optimiser's
// state. On the CPU LibTorch runs _foreach ops one tensor at a time: the same bits as
// opt.step(), which the tests check.
void sgd_step_foreach(torch::optim::SGD& opt);

}  // namespace prunex
