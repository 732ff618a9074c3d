#include "workloads/train/local_steps.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "engine/error.h"
#include "engine/phases.h"

namespace prunex {
namespace {

std::vector<torch::nn::BatchNorm2dImpl*> batch_norms(torch::nn::Module& model) {
  std::vector<torch::nn::BatchNorm2dImpl*> out;
  for (const auto& m : model.modules(/*include_self=*/false))
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.get())) out.push_back(bn);
  return out;
}

}  // namespace

int64_t steps_per_iteration(const TrainSetup& s) {
  if (s.cfg.local_steps > 0) return s.cfg.local_steps;
  return s.cfg.local_epochs * s.loader->batches_per_epoch();
}

double probe_step_seconds(TrainSetup& s) {
  torch::nn::Module& model = *s.model;
  const bool training = model.is_training();
  model.eval();
  const int64_t n = std::min<int64_t>(s.cfg.batch, s.train_shard.images.size(0));
  const torch::Tensor images = s.train_shard.images.narrow(0, 0, n).to(s.device);
  const torch::Tensor labels = s.train_shard.labels.narrow(0, 0, n).to(s.device);
  double seconds = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const double start = now_seconds();
    torch::nn::functional::cross_entropy(s.model->forward(images), labels).backward();
    device_sync(s);
    seconds = now_seconds() - start;
  }
  for (auto& p : model.parameters()) p.mutable_grad() = torch::Tensor();
  model.train(training);
  return seconds;
}

double run_local_steps(TrainSetup& s, PhaseClock& clock,
                       const std::function<void()>& after_backward,
                       const std::function<void()>& after_step) {
  s.model->train();
  const int64_t steps = steps_per_iteration(s);
  double loss_sum = 0;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last = start;
  for (int64_t i = 0; i < steps; ++i) {
    torch::Tensor loss;
    clock.time(Phase::local_compute, [&] {
      std::optional<Batch> b = s.epoch_open ? s.loader->next() : std::nullopt;
      if (!b) {  // every rank's shard has the same size: all ranks turn epochs together
        s.loader->start_epoch(s.epoch++);
        s.epoch_open = true;
        b = s.loader->next();
      }
      s.optimizer->zero_grad();
      loss = torch::nn::functional::cross_entropy(s.model->forward(b->images.to(s.device)),
                                                  b->labels.to(s.device));
      loss.backward();
    });
    if (after_backward) after_backward();
    clock.time(Phase::local_compute, [&] { sgd_step(s); });
    if (after_step) after_step();
    loss_sum += loss.item<double>();
    if (s.print_progress && i + 1 < steps &&
        std::chrono::duration<double>(Clock::now() - last).count() >= s.progress_s) {
      last = Clock::now();
      std::printf("  step %lld/%lld  loss %.4f (mean so far)  %.0f s\n",
                  static_cast<long long>(i + 1), static_cast<long long>(steps),
                  loss_sum / static_cast<double>(i + 1),
                  std::chrono::duration<double>(last - start).count());
      std::fflush(stdout);
    }
  }
  return steps ? loss_sum / steps : 0.0;
}

// Through host memory: `comm` is a control communicator.
void average_bn_buffers(torch::nn::Module& model, Communicator& comm) {
  std::vector<float> buf;
  auto bns = batch_norms(model);
  for (auto* bn : bns) {
    for (const auto* t : {&bn->running_mean, &bn->running_var}) {
      const torch::Tensor h = host_tensor(*t);
      buf.insert(buf.end(), h.data_ptr<float>(), h.data_ptr<float>() + h.numel());
    }
  }
  if (buf.empty()) return;
  comm.allreduce(buf.data(), buf.size(), DType::f32, ReduceOp::avg, Group::world);
  torch::NoGradGuard no_grad;
  size_t k = 0;
  for (auto* bn : bns) {
    for (auto* t : {&bn->running_mean, &bn->running_var}) {
      t->copy_(torch::from_blob(buf.data() + k, {t->numel()}).view_as(*t));
      k += t->numel();
    }
  }
}

void recalibrate_bn(torch::nn::Module& model, TrainSetup& s, Communicator& comm, int batches) {
  torch::NoGradGuard no_grad;
  auto bns = batch_norms(model);
  if (bns.empty()) return;
  for (auto* bn : bns) {
    bn->reset_running_stats();
    bn->options.momentum(c10::nullopt);  // cumulative average over the batches below
  }
  model.train();
  BatchOptions bo;
  bo.batch_size = s.cfg.batch;
  bo.seed = 7;
  BatchLoader loader(s.train_shard, bo);
  loader.start_epoch(0);
  auto& m = dynamic_cast<TorchModel&>(model);
  for (int i = 0; i < batches; ++i) {
    auto b = loader.next();
    if (!b) break;
    m.forward(b->images.to(s.device));
  }
  for (auto* bn : bns) bn->options.momentum(0.1);
  average_bn_buffers(model, comm);
}

EvalResult evaluate(torch::nn::Module& model, TrainSetup& s, Communicator& comm) {
  torch::NoGradGuard no_grad;
  model.eval();
  auto& m = dynamic_cast<TorchModel&>(model);
  double sums[3] = {0, 0, 0};  // loss sum, correct, count
  const int64_t n = s.test.size();
  for (int64_t i = 0; i < n; i += 500) {
    const int64_t len = std::min<int64_t>(500, n - i);
    auto x = s.test.images.narrow(0, i, len).to(s.device);
    auto y = s.test.labels.narrow(0, i, len).to(s.device);
    auto logits = m.forward(x);
    sums[0] +=
        torch::nn::functional::cross_entropy(
            logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
            .item<double>();
    sums[1] += logits.argmax(1).eq(y).sum().item<double>();
    sums[2] += static_cast<double>(len);
  }
  comm.allreduce(sums, 3, DType::f64, ReduceOp::sum, Group::world);
  return {sums[2] > 0 ? sums[0] / sums[2] : 0.0, sums[2] > 0 ? sums[1] / sums[2] : 0.0};
}

}  // namespace prunex
