// Top-K gradient sparsification with error feedback (Deep Gradient Compression, Lin et al.
// 2018): each rank adds its residual to the fresh gradient, keeps the k = ratio * n largest
// entries per layer by magnitude, and all-gathers (value, index) pairs for all layers in one
// message; every rank sums the gathered entries and divides by the world size. What was not
// sent stays in the residual.
// Device-native: the residuals, the selection, the message and the sum live where the
// parameters do, and the message travels on the payload communicator in that memory (NCCL's
// all-gather of device buffers on a GPU, MPI's of host buffers on the CPU). The sum adds the
// ranks' entries rank by rank in their order (index_add_), as a host loop would: bit for bit
// on the CPU (on a GPU the division by the world size may become a multiplication by its
// reciprocal).
#include <cstdlib>

#include "engine/error.h"
#include "engine/phases.h"
#include "engine/topk_selection.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/local_steps.h"

namespace prunex {
namespace {

class TopkStrategy : public LiveStrategy {
 public:
  TopkStrategy(TrainSetup& s, Communicator& comm) : s_(s), comm_(comm) {
    for (const auto& p : s.params) {
      const int64_t n = p.numel();
      const int64_t k = topk_k(n, s.cfg.topk.topk_ratio);  // as the plan builder sizes it
      k_.push_back(k);
      total_k_ += k;
      residual_.push_back(torch::zeros_like(p));
    }
    // Per rank block: total_k values (f32) then total_k indices (i32), as bytes.
    check_payload_memory(s, comm, "topk's message");
    const auto bytes = torch::TensorOptions().dtype(torch::kUInt8).device(s.device);
    const int64_t block = static_cast<int64_t>(topk_block_bytes(total_k_));
    send_ = torch::zeros({block}, bytes);
    recv_ = torch::zeros({block * comm.size(Group::world)}, bytes);
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

  // Another shape: each rank's unsent remainder was its own; a fresh start has none.
  void restart_rank_state() override {
    for (auto& r : residual_) r.zero_();
  }

  torch::nn::Module& eval_model() override {
    average_bn_buffers(*s_.model, s_.control());
    return *s_.model;
  }

 private:
  // Rank r's values (total_k floats) and indices (total_k int32) in a message buffer.
  torch::Tensor values(const torch::Tensor& buf, int64_t r) const {
    return buf.narrow(0, r * block(), total_k_ * 4).view(torch::kFloat32);
  }
  torch::Tensor indices(const torch::Tensor& buf, int64_t r) const {
    return buf.narrow(0, r * block() + total_k_ * 4, total_k_ * 4).view(torch::kInt32);
  }
  int64_t block() const { return send_.numel(); }

  void exchange() {
    torch::NoGradGuard no_grad;
    const int world = comm_.size(Group::world);
    clock_->time(Phase::compress, [&] {
      const torch::Tensor vals = values(send_, 0), idx = indices(send_, 0);
      int64_t at = 0;
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto g = s_.params[l].grad().reshape({-1}) + residual_[l].reshape({-1});
        auto top = std::get<1>(g.abs().topk(k_[l], 0, true, false));
        vals.narrow(0, at, k_[l]).copy_(g.index_select(0, top));
        idx.narrow(0, at, k_[l]).copy_(top);
        g.index_fill_(0, top, 0.0f);
        residual_[l].copy_(g.view_as(residual_[l]));
        at += k_[l];
      }
    });
    clock_->fence(comm_);
    clock_->time(Phase::allgather, [&] {
      comm_.allgather(send_.data_ptr(), recv_.data_ptr(), static_cast<std::size_t>(block()),
                      DType::u8, Group::world);
    });
    clock_->fence(comm_);
    clock_->time(Phase::compress, [&] {
      // Every rank gathered the same values: all stop alike (one check for the message).
      std::vector<torch::Tensor> finite;
      for (int r = 0; r < world; ++r) finite.push_back(torch::isfinite(values(recv_, r)).all());
      if (!torch::stack(finite).all().item<bool>()) throw_non_finite_entry(world);
      // Each rank's entries divided by the world size and its indices widened, once.
      std::vector<torch::Tensor> vals(world), idx(world);
      for (int r = 0; r < world; ++r) {
        vals[r] = values(recv_, r) / static_cast<float>(world);
        idx[r] = indices(recv_, r).to(torch::kInt64);
      }
      int64_t at = 0;  // layer l's entries in every rank's block
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto& grad = s_.params[l].mutable_grad();
        torch::Tensor sum = torch::zeros({grad.numel()}, grad.options());
        for (int r = 0; r < world; ++r)
          sum.index_add_(0, idx[r].narrow(0, at, k_[l]), vals[r].narrow(0, at, k_[l]));
        grad.copy_(sum.view_as(grad));
        at += k_[l];
      }
    });
    ++steps_;
  }

  // The first layer whose gathered entries hold a non-finite value, named.
  [[noreturn]] void throw_non_finite_entry(int world) const {
    int64_t at = 0;
    for (size_t l = 0; l < s_.params.size(); ++l) {
      for (int r = 0; r < world; ++r)
        if (!torch::isfinite(values(recv_, r).narrow(0, at, k_[l])).all().item<bool>())
          throw_non_finite(s_.layout, l, "the gathered gradient", iteration_);
      at += k_[l];
    }
    PRUNEX_CHECK(false, "a non-finite gathered value outside every layer");
    std::abort();
  }

  TrainSetup& s_;
  Communicator& comm_;
  std::vector<int64_t> k_;
  int64_t total_k_ = 0;
  std::vector<torch::Tensor> residual_;
  torch::Tensor send_, recv_;  // this rank's message; every rank's, in rank order (bytes)
  PhaseClock* clock_ = nullptr;
  int64_t steps_ = 0;
  int iteration_ = 0;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_topk(TrainSetup& s, Communicator& comm) {
  return std::make_unique<TopkStrategy>(s, comm);
}

}  // namespace prunex
