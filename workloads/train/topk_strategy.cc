// Top-K gradient sparsification with error feedback (Deep Gradient Compression, Lin et al.
// 2018): each rank adds its residual to the fresh gradient, keeps the k = ratio * n largest
// entries per layer by magnitude, and all-gathers (value, index) pairs for all layers in one
// message; every rank sums the gathered entries and divides by the world size. What was not
// sent stays in the residual.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/topk_selection.h"
#include "workloads/train/live_strategy.h"

namespace prunex {
namespace {

class TopkStrategy : public LiveStrategy {
 public:
  TopkStrategy(TrainSetup& s, Communicator& comm) : s_(s), comm_(comm) {
    for (const auto& p : s.params) {
      const int64_t n = p.numel();
      const int64_t k = topk_k(n, s.cfg.topk_ratio);  // as the plan builder sizes it
      k_.push_back(k);
      total_k_ += k;
      residual_.push_back(torch::zeros_like(p));
    }
    // Per rank block: total_k values (f32) then total_k indices (i32), as bytes.
    send_.assign(topk_block_bytes(total_k_), 0);
    recv_.assign(send_.size() * comm.size(Group::world), 0);
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    clock_ = &clock;
    iteration_ = k;
    LocalIteration out;
    out.loss = run_local_steps(s_, clock, [&] { exchange(); });
    out.dense_inter_bytes = static_cast<double>(s_.flat.total) * 4 * steps_;
    steps_ = 0;
    return out;
  }

  // Error feedback: what each layer has not sent yet.
  void save_state(StateSections& s) const override {
    for (size_t l = 0; l < residual_.size(); ++l) {
      const torch::Tensor h = host_tensor(residual_[l]);
      const float* p = h.data_ptr<float>();
      put_state(s, "topk/residual/" + std::to_string(l), std::vector<float>(p, p + h.numel()));
    }
  }
  void load_state(const StateSections& s) override {
    for (size_t l = 0; l < residual_.size(); ++l) {
      auto v = get_state<float>(s, "topk/residual/" + std::to_string(l), residual_[l].numel());
      residual_[l].copy_(torch::from_blob(v.data(), {residual_[l].numel()}).view_as(residual_[l]));
    }
  }

  torch::nn::Module& eval_model() override {
    average_bn_buffers(*s_.model, s_.control());
    return *s_.model;
  }

 private:
  void exchange() {
    torch::NoGradGuard no_grad;
    const int world = comm_.size(Group::world);
    float* vals = reinterpret_cast<float*>(send_.data());
    int32_t* idx = reinterpret_cast<int32_t*>(send_.data() + total_k_ * 4);
    clock_->time(phase::compress, [&] {
      int64_t at = 0;
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto g = s_.params[l].grad().reshape({-1}) + residual_[l].reshape({-1});
        auto top = std::get<1>(g.abs().topk(k_[l], 0, true, false));
        auto v = host_tensor(g.index_select(0, top));
        g.index_fill_(0, top, 0.0f);
        top = host_tensor(top.to(torch::kInt32));  // the message is built in host memory
        std::memcpy(vals + at, v.data_ptr<float>(), k_[l] * 4);
        std::memcpy(idx + at, top.data_ptr<int32_t>(), k_[l] * 4);
        residual_[l].copy_(g.view_as(residual_[l]));
        at += k_[l];
      }
    });
    clock_->fence(comm_);
    clock_->time(phase::allgather, [&] {
      comm_.allgather(send_.data(), recv_.data(), send_.size(), DType::u8, Group::world);
    });
    clock_->fence(comm_);
    clock_->time(phase::compress, [&] {
      int64_t at = 0;  // layer l's entries in every rank's block
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto& grad = s_.params[l].mutable_grad();
        // Summed in host memory (rank by rank, as the ranks' blocks come), then copied over.
        torch::Tensor h = torch::zeros({grad.numel()});
        float* g = h.data_ptr<float>();
        for (int r = 0; r < world; ++r) {
          const uint8_t* block = recv_.data() + r * send_.size();
          const float* rv = reinterpret_cast<const float*>(block) + at;
          const int32_t* ri = reinterpret_cast<const int32_t*>(block + total_k_ * 4) + at;
          for (int64_t i = 0; i < k_[l]; ++i) {
            // Every rank gathered the same values: all stop alike.
            if (!std::isfinite(rv[i]))
              throw_non_finite(s_.layout, l, "the gathered gradient", iteration_);
            g[ri[i]] += rv[i] / world;
          }
        }
        grad.copy_(h.view_as(grad));
        at += k_[l];
      }
    });
    ++steps_;
  }

  TrainSetup& s_;
  Communicator& comm_;
  std::vector<int64_t> k_;
  int64_t total_k_ = 0;
  std::vector<torch::Tensor> residual_;
  std::vector<uint8_t> send_, recv_;
  PhaseClock* clock_ = nullptr;
  int64_t steps_ = 0;
  int iteration_ = 0;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_topk(TrainSetup& s, Communicator& comm) {
  return std::make_unique<TopkStrategy>(s, comm);
}

}  // namespace prunex
