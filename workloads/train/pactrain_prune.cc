#include "workloads/train/pactrain_prune.h"

#include <cstring>

#include "engine/error.h"
#include "engine/pactrain.h"
#include "workloads/train/train_checkpoint.h"

namespace prunex {
namespace {

// GraSP scores (Wang, Zhang and Grosse, ICLR 2020): g = the gradient over the batches, Hg by
// differentiating g(w) . g a second time; the score -w * Hg, largest pruned first. Batch-norm
// statistics are restored afterwards, so rank 0's model is otherwise unchanged.
std::vector<torch::Tensor> grasp_scores(TrainSetup& s, const std::vector<int>& layers) {
  std::vector<torch::Tensor> w;
  for (int l : layers) w.push_back(s.params[l]);
  std::vector<torch::Tensor> saved;
  for (const auto& b : s.model->buffers(true)) saved.push_back(b.clone());
  s.model->train();
  const int64_t n = s.train_shard.size();
  const int64_t batch = std::min<int64_t>(s.cfg.batch, n);
  auto batch_at = [&](int i) {
    const int64_t lo = (i * batch) % std::max<int64_t>(1, n - batch + 1);
    return std::pair{s.train_shard.images.narrow(0, lo, batch).to(s.device),
                     s.train_shard.labels.narrow(0, lo, batch).to(s.device)};
  };
  std::vector<torch::Tensor> g;
  for (auto& t : w) g.push_back(torch::zeros_like(t));
  for (int i = 0; i < kGraspBatches; ++i) {
    auto [x, y] = batch_at(i);
    auto loss = torch::nn::functional::cross_entropy(s.model->forward(x), y);
    auto gs = torch::autograd::grad({loss}, w);
    for (size_t j = 0; j < w.size(); ++j) g[j] += gs[j].detach();
  }
  std::vector<torch::Tensor> hg;
  for (auto& t : w) hg.push_back(torch::zeros_like(t));
  for (int i = 0; i < kGraspBatches; ++i) {
    auto [x, y] = batch_at(i);
    auto loss = torch::nn::functional::cross_entropy(s.model->forward(x), y);
    auto gs = torch::autograd::grad({loss}, w, {}, true, true);
    torch::Tensor z = torch::zeros({}, loss.options());
    for (size_t j = 0; j < w.size(); ++j) z = z + (gs[j] * g[j]).sum();
    auto h = torch::autograd::grad({z}, w);
    for (size_t j = 0; j < w.size(); ++j) hg[j] += h[j].detach();
  }
  torch::NoGradGuard no_grad;
  size_t k = 0;
  for (const auto& b : s.model->buffers(true)) b.copy_(saved[k++]);
  std::vector<torch::Tensor> out;
  // lowest_scores prunes the lowest: hand it w * Hg, the negated score.
  for (size_t j = 0; j < w.size(); ++j) out.push_back(host_tensor(w[j].detach() * hg[j]));
  return out;
}

}  // namespace

int pactrain_init_model(TrainSetup& s, Communicator& comm) {
  std::string error;
  int k = 0;
  if (comm.world_rank() == 0) {
    try {
      k = load_init_model(s);
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  int64_t len = static_cast<int64_t>(error.size());
  comm.broadcast(&len, 1, DType::i64, 0, Group::world);
  error.resize(static_cast<std::size_t>(len));
  comm.broadcast(error.data(), error.size(), DType::u8, 0, Group::world);
  PRUNEX_USAGE(error.empty(), error);
  comm.broadcast(&k, 1, DType::i32, 0, Group::world);
  torch::NoGradGuard no_grad;
  // Through host copies: comm moves host memory.
  for (auto& t : s.model->parameters(true)) {
    auto c = host_tensor(t);
    comm.broadcast(c.data_ptr<float>(), static_cast<std::size_t>(c.numel()), DType::f32, 0,
                   Group::world);
    t.copy_(c);
  }
  for (auto& b : s.model->buffers(true)) {
    auto c = host_tensor(b);
    comm.broadcast(c.data_ptr(), static_cast<std::size_t>(c.numel() * c.element_size()), DType::u8,
                   0, Group::world);
    b.copy_(c);
  }
  comm.clear_calls();
  return k;
}

std::vector<torch::Tensor> pactrain_prune(TrainSetup& s, Communicator& comm) {
  std::vector<int> layers;
  int64_t total = 0;
  for (size_t l = 0; l < s.layout.layers.size(); ++l)
    if (pactrain_prunable(s.layout.layers[l])) {
      layers.push_back(static_cast<int>(l));
      total += s.layout.layers[l].numel();
    }
  std::vector<uint8_t> keep(static_cast<size_t>(total), 1);
  if (comm.world_rank() == 0) {
    std::vector<torch::Tensor> scores;
    if (s.cfg.prune_method == "grasp") {
      scores = grasp_scores(s, layers);
    } else {
      for (int l : layers) scores.push_back(host_tensor(s.params[l].detach().abs()));
    }
    int64_t at = 0;
    for (size_t j = 0; j < layers.size(); ++j) {
      const int64_t n = scores[j].numel();
      for (int64_t i : lowest_scores(scores[j].data_ptr<float>(), n, s.cfg.pactrain.prune_ratio))
        keep[at + i] = 0;
      at += n;
    }
  }
  comm.broadcast(keep.data(), keep.size(), DType::u8, 0, Group::world);
  std::vector<torch::Tensor> masks(s.layout.layers.size());
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (int l : layers) {
    const int64_t n = s.params[l].numel();
    auto m = torch::empty({n}, torch::kFloat32);
    float* mp = m.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) mp[i] = keep[at + i];
    masks[l] = m.view_as(s.params[l]);  // on the host: the strategy reads it there
    s.params[l].mul_(masks[l].to(s.params[l].device()));
    at += n;
  }
  comm.clear_calls();  // the one-off broadcast is not an iteration's traffic
  return masks;
}

}  // namespace prunex
