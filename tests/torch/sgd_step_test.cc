// sgd_step_foreach (the multi-tensor SGD step the trainer takes on a GPU) against LibTorch's
// own torch::optim::SGD::step: on the CPU LibTorch runs the _foreach ops one tensor at a time
// with the same kernels, so the two must agree bit for bit, step after step (momentum buffers
// created at the first step, weight decay, a learning-rate change, a parameter without a
// gradient).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "workloads/train/sgd_step.h"

namespace prunex {
namespace {

std::vector<torch::Tensor> sgd_test_params(std::vector<int64_t> sizes) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> out;
  for (int64_t n : sizes) out.push_back(torch::randn({n}).requires_grad_(true));
  return out;
}

TEST(SgdStepForeach, EqualsTheOptimizerStepBitForBit) {
  const std::vector<int64_t> sizes = {7, 1, 300, 64};
  auto a = sgd_test_params(sizes), b = sgd_test_params(sizes);
  const auto opts = torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4);
  torch::optim::SGD reference(a, opts), ours(b, opts);
  torch::manual_seed(5);
  for (int step = 0; step < 4; ++step) {
    if (step == 2)  // a schedule's change between steps reaches both
      for (auto* o : {&reference, &ours})
        static_cast<torch::optim::SGDOptions&>(o->param_groups()[0].options()).lr(0.01);
    for (size_t i = 0; i < sizes.size(); ++i) {
      // The third parameter gets no gradient at the first step (an unused layer): neither
      // step touches it or makes its momentum buffer then.
      if (step == 0 && i == 2) continue;
      const torch::Tensor g = torch::randn({sizes[i]});
      a[i].mutable_grad() = g.clone();
      b[i].mutable_grad() = g.clone();
    }
    reference.step();
    sgd_step_foreach(ours);
    for (size_t i = 0; i < sizes.size(); ++i)
      EXPECT_TRUE(torch::equal(a[i], b[i])) << "step " << step << " parameter " << i;
    EXPECT_EQ(reference.state().size(), ours.state().size()) << "step " << step;
  }
}

}  // namespace
}  // namespace prunex
