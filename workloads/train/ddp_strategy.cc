// The reducer of the strategies built on DDP's gradient buckets (engine/ddp_buckets.h,
// PyTorch's assignment; Li et al., VLDB 2020), and ddp's own codec. After every backward pass
// the gradients are averaged over the world, bucket by bucket: a bucket's reduction starts
// from a gradient hook as soon as its last gradient is ready, overlapping the rest of the
// backward pass (unless --sync-phases or the codec says otherwise), and what travels is the
// codec's (bucket_codec.h). ddp sends the bucket in fp32, summed; the division by the world
// size rides on the copy back into the gradients.
// The buckets live where the parameters do (every codec is device-native): on the GPU under
// --backend nccl a gradient is copied into its bucket on LibTorch's stream, and the bucket's
// NCCL all-reduce waits for that copy on the device (nccl_communicator.h), so it overlaps the
// rest of backward as PyTorch's Reducer does.
#include "engine/ddp_buckets.h"
#include "engine/error.h"
#include "engine/pactrain.h"
#include "engine/phases.h"
#include "workloads/train/bucket_codec.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/local_steps.h"

namespace prunex {
namespace {

class DenseCodec : public BucketCodec {
 public:
  explicit DenseCodec(Communicator& comm) : comm_(comm) {}
  std::unique_ptr<Work> launch(GradBucket& b, int64_t, bool async) override {
    const auto n = static_cast<std::size_t>(b.floats);
    if (async) return comm_.allreduce_async(b.payload, n, DType::f32, ReduceOp::sum, Group::world);
    comm_.allreduce(b.payload, n, DType::f32, ReduceOp::sum, Group::world);
    return nullptr;
  }

 private:
  Communicator& comm_;
};

// PyTorch's bucket assignment over the parameters (no storage yet).
std::vector<GradBucket> make_buckets(const TrainSetup& s) {
  std::vector<int64_t> numel;
  for (const auto& p : s.params) numel.push_back(p.numel());
  std::vector<GradBucket> buckets;
  // The plan builder sizes its all-reduces with the same assignment (engine/ddp_buckets.h).
  for (auto& a : ddp_bucket_assignment(numel, kDdpFirstBucketBytes, bucket_cap_bytes(s.cfg.ddp))) {
    GradBucket b;
    b.index = static_cast<int>(buckets.size());
    b.layers = a.layers;
    b.offsets = a.offsets;
    b.floats = a.floats;
    buckets.push_back(std::move(b));
  }
  return buckets;
}

std::unique_ptr<BucketCodec> make_codec(TrainSetup& s, Communicator& comm,
                                        const std::vector<GradBucket>& buckets) {
  switch (s.cfg.strategy) {
    case Strategy::fp16:
      return make_fp16_codec(s, comm, buckets);
    case Strategy::pactrain:
      return make_pactrain_codec(s, comm, buckets);
    case Strategy::cgx:
      return make_cgx_codec(s, comm, buckets);
    case Strategy::powersgd:
      return make_powersgd_codec(s, comm, buckets);
    default:
      return make_dense_codec(comm);
  }
}

class BucketReducer : public LiveStrategy {
 public:
  BucketReducer(TrainSetup& s, Communicator& comm) : s_(s), comm_(comm) {
    PRUNEX_USAGE(!s.cfg.pactrain.ternary || comm.size(Group::world) <= kTernaryMaxRanks,
                 "--ternary sums int8 levels, exact for at most ", kTernaryMaxRanks,
                 " ranks; this world has ", comm.size(Group::world));
    buckets_ = make_buckets(s);
    slot_.resize(s.params.size());
    for (const auto& b : buckets_)
      for (size_t i = 0; i < b.layers.size(); ++i) slot_[b.layers[i]] = {b.index, b.offsets[i]};
    pending_.assign(buckets_.size(), 0);
    work_.resize(buckets_.size());
    codec_ = make_codec(s, comm, buckets_);
    check_payload_memory(s, comm, "the buckets");
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(s.device);
    for (auto& b : buckets_) {
      flat_.push_back(torch::zeros({b.floats}, opts));
      b.payload = flat_.back().data_ptr<float>();
    }
    for (int l = 0; l < static_cast<int>(s.params.size()); ++l)
      s.params[l].register_hook([this, l](torch::Tensor grad) { on_grad(l, grad); });
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    clock_ = &clock;
    iteration_ = k;
    LocalIteration out;
    out.loss = run_local_steps(
        s_, clock, [&] { finish_step(); }, [&] { codec_->after_step(++step_); });
    out.dense_inter_bytes = static_cast<double>(s_.flat.total) * 4 * steps_per_iteration_;
    steps_per_iteration_ = 0;
    codec_->report(out.density);
    return out;
  }

  torch::nn::Module& eval_model() override {
    average_bn_buffers(*s_.model, s_.control());
    return *s_.model;
  }

  void save_state(StateSections& st) const override {
    put_state_value<int64_t>(st, "buckets/step", step_);
    codec_->save_state(st);
  }
  void load_state(const StateSections& st) override {
    // Checkpoints of ddp runs written before the peers existed have no step (ddp ignores it).
    step_ = st.count("buckets/step") ? get_state<int64_t>(st, "buckets/step", 1)[0] : 0;
    codec_->load_state(st);
  }
  void restart_rank_state() override { codec_->restart_rank_state(); }

 private:
  struct Slot {
    int bucket = 0;
    int64_t offset = 0;
  };

  // Runs inside backward (autograd calls hooks on this thread).
  void on_grad(int l, const torch::Tensor& grad) {
    const int i = slot_[l].bucket;
    GradBucket& b = buckets_[i];
    if (pending_[i] == 0) pending_[i] = static_cast<int>(b.layers.size());
    {  // on the gradient's device and stream
      torch::NoGradGuard no_grad;
      flat_[i].narrow(0, slot_[l].offset, grad.numel()).copy_(grad.reshape({-1}));
    }
    // --sync-phases: reduced after backward instead (finish_step), so that the phase times
    // the collective alone.
    if (--pending_[i] == 0 && !s_.cfg.sync_phases && codec_->overlaps_backward())
      work_[i] = codec_->launch(b, step_, true);
    // Let earlier buckets progress (MPI progresses non-blocking collectives inside calls).
    for (auto& w : work_)
      if (w) w->is_completed();
  }

  // After backward: the exposed part of the reductions, the codec's decoding (compress), then
  // the averages into the gradients.
  void finish_step() {
    clock_->fence(comm_);
    clock_->time(Phase::allreduce, [&] {
      const bool overlapped = !s_.cfg.sync_phases && codec_->overlaps_backward();
      for (auto& b : buckets_) {
        auto& work = work_[b.index];
        if (overlapped) {
          PRUNEX_CHECK(work != nullptr, "bucket never launched (a gradient missing?)");
          work->wait();
          work.reset();
        } else {
          work = codec_->launch(b, step_, false);
        }
      }
    });
    const auto land_all = [&] {
      for (auto& b : buckets_) codec_->land(b);
    };
    if (codec_->decodes())
      clock_->time(Phase::compress, land_all);
    else
      land_all();
    clock_->fence(comm_);
    clock_->time(Phase::local_compute, [&] {
      torch::NoGradGuard no_grad;
      const float inv =
          codec_->averages() ? 1.0f : 1.0f / static_cast<float>(comm_.size(Group::world));
      gradients_from_buckets(inv);
      codec_->after_gradients();
    });
    ++steps_per_iteration_;
  }

  // The buckets averaged in place, checked for non-finite values with one host
  // synchronisation, then copied into the gradients, all on the buckets' device.
  void gradients_from_buckets(float inv) {
    std::vector<torch::Tensor> finite;
    for (auto& f : flat_) {
      if (inv != 1.0f) f.mul_(inv);
      finite.push_back(torch::isfinite(f).all());
    }
    if (!torch::stack(finite).all().item<bool>()) {
      // The averaged gradient is the same on every rank: all stop alike, at the first layer.
      for (size_t l = 0; l < s_.params.size(); ++l)
        if (!torch::isfinite(bucket_view(l)).all().item<bool>())
          throw_non_finite(s_.layout, l, "the averaged gradient", iteration_);
    }
    for (size_t l = 0; l < s_.params.size(); ++l) {
      auto& gr = s_.params[l].mutable_grad();
      gr.copy_(bucket_view(l).view_as(gr));
    }
  }
  torch::Tensor bucket_view(size_t l) const {
    return flat_[slot_[l].bucket].narrow(0, slot_[l].offset, s_.params[l].numel());
  }

  TrainSetup& s_;
  Communicator& comm_;
  std::vector<GradBucket> buckets_;
  std::vector<torch::Tensor> flat_;          // per bucket, on the parameters' device
  std::vector<Slot> slot_;                   // per layer
  std::vector<int> pending_;                 // per bucket: gradients still to come
  std::vector<std::unique_ptr<Work>> work_;  // per bucket: its reduction in flight
  std::unique_ptr<BucketCodec> codec_;
  PhaseClock* clock_ = nullptr;
  int64_t steps_per_iteration_ = 0;
  int64_t step_ = 0;  // local steps so far (seeds)
  int iteration_ = 0;
};

}  // namespace

std::unique_ptr<BucketCodec> make_dense_codec(Communicator& comm) {
  return std::make_unique<DenseCodec>(comm);
}

std::unique_ptr<LiveStrategy> make_ddp(TrainSetup& s, Communicator& comm) {
  return std::make_unique<BucketReducer>(s, comm);
}

}  // namespace prunex
