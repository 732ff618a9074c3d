// PyTorch-DDP-style dense data parallelism: after every backward pass the gradients are
// averaged over the world in buckets of PyTorch's assignment (engine/ddp_buckets.h); a
// bucket's all-reduce starts from a gradient hook as soon as its last gradient is
// ready, so communication overlaps the rest of the backward pass (Li et al., VLDB 2020).
// The buckets are summed, and the division by the world size rides on the copy back into
// the gradients: no extra pass over the buffer (MPI has no average).
#include <cmath>
#include <cstring>

#include "engine/ddp_buckets.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "workloads/train/live_strategy.h"

namespace prunex {
namespace {

class DdpStrategy : public LiveStrategy {
 public:
  DdpStrategy(TrainSetup& s, Communicator& comm) : s_(s), comm_(comm) {
    const int L = static_cast<int>(s.params.size());
    std::vector<int64_t> numel;
    for (const auto& p : s.params) numel.push_back(p.numel());
    // The plan builder sizes its all-reduces with the same assignment (engine/ddp_buckets.h).
    slot_.resize(L);
    for (auto& a : ddp_bucket_assignment(numel)) {
      for (size_t i = 0; i < a.layers.size(); ++i)
        slot_[a.layers[i]] = {static_cast<int>(buckets_.size()), a.offsets[i]};
      buckets_.push_back({});
      buckets_.back().layers = a.layers;
      buckets_.back().floats = a.floats;
    }
    for (auto& b : buckets_) b.data.assign(b.floats, 0.f);
    for (int l = 0; l < L; ++l) {
      s.params[l].register_hook([this, l](torch::Tensor grad) { on_grad(l, grad); });
    }
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    clock_ = &clock;
    iteration_ = k;
    LocalIteration out;
    out.loss = run_local_steps(s_, clock, [&] { finish_step(); });
    out.dense_inter_bytes = static_cast<double>(s_.flat.total) * 4 * steps_per_iteration_;
    steps_per_iteration_ = 0;
    return out;
  }

  torch::nn::Module& eval_model() override {
    average_bn_buffers(*s_.model, comm_);
    return *s_.model;
  }

 private:
  struct Bucket {
    std::vector<int> layers;
    int64_t floats = 0;
    std::vector<float> data;
    int pending = 0;
    std::unique_ptr<Work> work;
  };
  struct Slot {
    int bucket = 0;
    int64_t offset = 0;
  };

  // Runs inside backward (autograd calls hooks on this thread).
  void on_grad(int l, const torch::Tensor& grad) {
    Bucket& b = buckets_[slot_[l].bucket];
    if (b.pending == 0) b.pending = static_cast<int>(b.layers.size());
    auto g = grad.contiguous();
    std::memcpy(b.data.data() + slot_[l].offset, g.data_ptr<float>(), g.numel() * sizeof(float));
    // --sync-phases: all-reduced after backward instead (finish_step), so that the phase
    // times the collective alone.
    if (--b.pending == 0 && !s_.cfg.sync_phases)
      b.work =
          comm_.allreduce_async(b.data.data(), b.floats, DType::f32, ReduceOp::sum, Group::world);
    // Let earlier buckets progress (MPI progresses non-blocking collectives inside calls).
    for (auto& other : buckets_)
      if (other.work) other.work->is_completed();
  }

  // After backward: the exposed part of the all-reduces, then the sums divided by the world
  // size into the gradients.
  void finish_step() {
    clock_->fence(comm_);
    clock_->time(phase::allreduce, [&] {
      for (auto& b : buckets_) {
        if (s_.cfg.sync_phases) {
          comm_.allreduce(b.data.data(), b.floats, DType::f32, ReduceOp::sum, Group::world);
          continue;
        }
        PRUNEX_CHECK(b.work != nullptr, "DDP bucket never launched (a gradient missing?)");
        b.work->wait();
        b.work.reset();
      }
    });
    clock_->fence(comm_);
    clock_->time(phase::local_compute, [&] {
      torch::NoGradGuard no_grad;
      const float inv = 1.0f / static_cast<float>(comm_.size(Group::world));
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto& gr = s_.params[l].mutable_grad();
        const float* src = buckets_[slot_[l].bucket].data.data() + slot_[l].offset;
        float* dst = gr.data_ptr<float>();
        for (int64_t i = 0, n = gr.numel(); i < n; ++i) {
          dst[i] = src[i] * inv;
          // The averaged gradient is the same on every rank: all stop alike.
          if (!std::isfinite(dst[i]))
            throw_non_finite(s_.layout, l, "the averaged gradient", iteration_);
        }
      }
    });
    ++steps_per_iteration_;
  }

  TrainSetup& s_;
  Communicator& comm_;
  std::vector<Bucket> buckets_;
  std::vector<Slot> slot_;
  PhaseClock* clock_ = nullptr;
  int64_t steps_per_iteration_ = 0;
  int iteration_ = 0;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_ddp(TrainSetup& s, Communicator& comm) {
  return std::make_unique<DdpStrategy>(s, comm);
}

}  // namespace prunex
