// The strategies built on DDP's gradient buckets (engine/ddp_buckets.h, PyTorch's assignment;
// Li et al., VLDB 2020). After every backward pass the gradients are averaged over the world,
// bucket by bucket; what travels differs:
// - ddp: the bucket in fp32, its all-reduce started from a gradient hook as soon as its last
//   gradient is ready, overlapping the rest of the backward pass. Summed; the division by the
//   world size rides on the copy back into the gradients.
// - fp16: PyTorch's fp16_compress_hook: the bucket divided by the world size, cast to fp16,
//   summed in fp16 (engine/wire_dtype.h), cast back.
// - pactrain (engine/pactrain.h): gradients masked by the pruning mask; a bucket whose mask
//   (the nonzero weights of its pruned layers) has been unchanged for --stable-steps steps
//   travels as its kept values only, packed in layout order; --ternary sends TernGrad levels
//   (a MAX all-reduce of the bucket's scaler first, then an int8 SUM).
// - cgx (engine/cgx_codec.h, cgx_allreduce.h): quantized buckets reduced by CGX's
//   scatter-reduce-allgather and leaders' ring over point-to-point messages, after backward
//   (no overlap: the reduction is a chain of blocking hops), timed as the allreduce phase.
#include <cmath>
#include <cstring>

#include "engine/cgx_adaptive.h"
#include "engine/cgx_allreduce.h"
#include "engine/ddp_buckets.h"
#include "engine/error.h"
#include "engine/pactrain.h"
#include "engine/phases.h"
#include "engine/wire_dtype.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/pactrain_prune.h"

namespace prunex {
namespace {

class BucketedStrategy : public LiveStrategy {
 public:
  BucketedStrategy(TrainSetup& s, Communicator& comm) : s_(s), comm_(comm), mode_(s.cfg.strategy) {
    PRUNEX_USAGE(!s.cfg.ternary || comm.size(Group::world) <= kTernaryMaxRanks,
                 "--ternary sums int8 levels, exact for at most ", kTernaryMaxRanks,
                 " ranks; this world has ", comm.size(Group::world));
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
      buckets_.back().offsets = a.offsets;
      buckets_.back().floats = a.floats;
    }
    for (auto& b : buckets_) b.data.assign(b.floats, 0.f);
    if (mode_ == Strategy::fp16)
      for (auto& b : buckets_) b.wire.assign(b.floats, 0);
    if (mode_ == Strategy::pactrain) {
      if (!s.cfg.init.empty()) {
        const int k = pactrain_init_model(s, comm);
        if (comm.world_rank() == 0)
          std::printf("pactrain: pruning the ddp model of %s (iteration %d)\n", s.cfg.init.c_str(),
                      k);
      } else if (comm.world_rank() == 0) {
        std::printf("pactrain: pruning the freshly initialised model (no --init)\n");
      }
      masks_ = pactrain_prune(s, comm);
    }
    masks_.resize(L);
    if (mode_ == Strategy::pactrain) {
      for (auto& b : buckets_) remember_mask(b);
    }
    if (mode_ == Strategy::cgx) {
      bits_.assign(L, s.cfg.bits);
      build_codecs();
      if (s.cfg.adaptive_bits && comm.world_rank() == 0)
        for (const auto& p : s.params) acc_.push_back(torch::zeros(p.sizes()));  // host
    }
    for (int l = 0; l < L; ++l) {
      s.params[l].register_hook([this, l](torch::Tensor grad) { on_grad(l, grad); });
    }
  }

  LocalIteration iterate(int k, PhaseClock& clock) override {
    clock_ = &clock;
    iteration_ = k;
    LocalIteration out;
    out.loss = run_local_steps(
        s_, clock, [&] { finish_step(); }, [&] { after_step(); });
    out.dense_inter_bytes = static_cast<double>(s_.flat.total) * 4 * steps_per_iteration_;
    steps_per_iteration_ = 0;
    // pactrain: the nonzero fraction of each pruned weight (stays <= 1 - ratio: pruned weights
    // never regrow, since their gradients are masked).
    for (size_t l = 0; l < masks_.size(); ++l)
      if (masks_[l].defined())
        out.density[s_.layout.layers[l].name] =
            s_.params[l].ne(0).sum().item<double>() / static_cast<double>(s_.params[l].numel());
    return out;
  }

  torch::nn::Module& eval_model() override {
    average_bn_buffers(*s_.model, s_.control());
    return *s_.model;
  }

  void save_state(StateSections& st) const override {
    put_state_value<int64_t>(st, "buckets/step", step_);
    if (mode_ == Strategy::pactrain) {
      std::vector<int64_t> stable;
      for (const auto& b : buckets_) stable.push_back(b.stable);
      put_state(st, "pactrain/stable", stable);
      for (size_t l = 0; l < masks_.size(); ++l)
        if (masks_[l].defined()) {
          const float* p = masks_[l].data_ptr<float>();
          put_state(st, "pactrain/mask/" + std::to_string(l),
                    std::vector<float>(p, p + masks_[l].numel()));
        }
    }
    if (mode_ == Strategy::cgx) {
      put_state(st, "cgx/bits", std::vector<int32_t>(bits_.begin(), bits_.end()));
      for (size_t l = 0; l < acc_.size(); ++l) {
        const float* p = acc_[l].data_ptr<float>();
        put_state(st, "cgx/acc/" + std::to_string(l), std::vector<float>(p, p + acc_[l].numel()));
      }
    }
  }
  void load_state(const StateSections& st) override {
    // Checkpoints of ddp runs written before the peers existed have no step (ddp ignores it).
    step_ = st.count("buckets/step") ? get_state<int64_t>(st, "buckets/step", 1)[0] : 0;
    if (mode_ == Strategy::pactrain) {
      const auto stable =
          get_state<int64_t>(st, "pactrain/stable", static_cast<int64_t>(buckets_.size()));
      for (size_t b = 0; b < buckets_.size(); ++b) buckets_[b].stable = stable[b];
      for (size_t l = 0; l < masks_.size(); ++l)
        if (masks_[l].defined()) {
          const auto v =
              get_state<float>(st, "pactrain/mask/" + std::to_string(l), masks_[l].numel());
          std::copy(v.begin(), v.end(), masks_[l].data_ptr<float>());
        }
      for (auto& b : buckets_) remember_mask(b);  // the restored weights' (unchanged) mask
    }
    if (mode_ == Strategy::cgx) {
      const auto bits = get_state<int32_t>(st, "cgx/bits", static_cast<int64_t>(bits_.size()));
      bits_.assign(bits.begin(), bits.end());
      build_codecs();
      for (size_t l = 0; l < acc_.size(); ++l) {
        const auto v = get_state<float>(st, "cgx/acc/" + std::to_string(l), acc_[l].numel());
        std::copy(v.begin(), v.end(), acc_[l].data_ptr<float>());
      }
    }
  }

 private:
  struct Bucket {
    std::vector<int> layers;
    std::vector<int64_t> offsets;
    int64_t floats = 0;
    std::vector<float> data;
    int pending = 0;
    std::unique_ptr<Work> work;
    std::vector<uint16_t> wire;  // fp16
    // pactrain: the mask last seen (one byte per value), how many steps it has stayed, the
    // kept positions in the bucket, the compact values, the ternary levels and scaler.
    std::vector<uint8_t> mask;
    int64_t stable = 0;
    std::vector<int64_t> kept;
    std::vector<float> compact;
    std::vector<int8_t> levels;
    float scaler = 0;
    bool compacted = false;  // this step's payload is the compact one
    std::unique_ptr<CgxBufferCodec> codec;
  };
  struct Slot {
    int bucket = 0;
    int64_t offset = 0;
  };

  // Runs inside backward (autograd calls hooks on this thread).
  void on_grad(int l, const torch::Tensor& grad) {
    Bucket& b = buckets_[slot_[l].bucket];
    if (b.pending == 0) b.pending = static_cast<int>(b.layers.size());
    auto g = host_tensor(grad);  // buckets live in host memory
    float* dst = b.data.data() + slot_[l].offset;
    std::memcpy(dst, g.data_ptr<float>(), g.numel() * sizeof(float));
    if (mode_ == Strategy::pactrain && masks_[l].defined()) {  // g <- g * m
      const float* m = masks_[l].data_ptr<float>();
      for (int64_t i = 0, n = g.numel(); i < n; ++i) dst[i] *= m[i];
    }
    // --sync-phases: all-reduced after backward instead (finish_step), so that the phase
    // times the collective alone. cgx reduces after backward.
    if (--b.pending == 0 && !s_.cfg.sync_phases && mode_ != Strategy::cgx) launch(b, true);
    // Let earlier buckets progress (MPI progresses non-blocking collectives inside calls).
    for (auto& other : buckets_)
      if (other.work) other.work->is_completed();
  }

  // Starts the bucket's reduction (async: non-blocking, else blocking).
  void launch(Bucket& b, bool async) {
    auto start = [&](void* p, std::size_t n, DType t) {
      if (async) {
        b.work = comm_.allreduce_async(p, n, t, ReduceOp::sum, Group::world);
      } else {
        comm_.allreduce(p, n, t, ReduceOp::sum, Group::world);
      }
    };
    if (mode_ == Strategy::ddp) return start(b.data.data(), b.data.size(), DType::f32);
    if (mode_ == Strategy::fp16) {
      const float inv = 1.0f / static_cast<float>(comm_.size(Group::world));
      for (int64_t i = 0; i < b.floats; ++i) b.wire[i] = float_to_f16(b.data[i] * inv);
      return start(b.wire.data(), b.wire.size(), DType::f16);
    }
    // pactrain
    b.compacted = b.stable >= s_.cfg.stable_steps;
    float* payload = b.data.data();
    int64_t n = b.floats;
    if (b.compacted) {
      b.compact.resize(b.kept.size());
      for (size_t i = 0; i < b.kept.size(); ++i) b.compact[i] = b.data[b.kept[i]];
      payload = b.compact.data();
      n = static_cast<int64_t>(b.compact.size());
    }
    if (!s_.cfg.ternary) return start(payload, static_cast<std::size_t>(n), DType::f32);
    b.scaler = max_abs(payload, n);
    comm_.allreduce(&b.scaler, 1, DType::f32, ReduceOp::max, Group::world);
    b.levels.resize(static_cast<std::size_t>(n));
    const uint64_t seed = (static_cast<uint64_t>(s_.cfg.seed) << 40) ^
                          (static_cast<uint64_t>(comm_.world_rank()) << 32) ^
                          (static_cast<uint64_t>(step_) << 8) ^
                          static_cast<uint64_t>(&b - &buckets_[0]);
    ternarize(payload, n, b.scaler, seed, b.levels.data());
    start(b.levels.data(), b.levels.size(), DType::i8);
  }

  // After the bucket's reduction: its sum (fp16: its average) in b.data.
  void land(Bucket& b) {
    if (mode_ == Strategy::fp16) {
      for (int64_t i = 0; i < b.floats; ++i) b.data[i] = f16_to_float(b.wire[i]);
      return;
    }
    if (mode_ != Strategy::pactrain) return;
    float* payload = b.compacted ? b.compact.data() : b.data.data();
    const int64_t n = b.compacted ? static_cast<int64_t>(b.compact.size()) : b.floats;
    if (s_.cfg.ternary)
      for (int64_t i = 0; i < n; ++i) payload[i] = b.scaler * static_cast<float>(b.levels[i]);
    if (b.compacted) {
      std::fill(b.data.begin(), b.data.end(), 0.f);
      for (size_t i = 0; i < b.kept.size(); ++i) b.data[b.kept[i]] = b.compact[i];
    }
  }

  // After backward: the exposed part of the reductions, then the sums divided by the world
  // size into the gradients.
  void finish_step() {
    clock_->fence(comm_);
    clock_->time(phase::allreduce, [&] {
      for (auto& b : buckets_) {
        if (mode_ == Strategy::cgx) {
          const uint64_t bucket = static_cast<uint64_t>(&b - &buckets_[0]);
          cgx_allreduce(
              comm_, b.data.data(), *b.codec,
              {s_.cfg.stochastic_rounding,
               (static_cast<uint64_t>(s_.cfg.seed) * 1000003ull + step_) * 1009ull + bucket});
          continue;
        }
        if (s_.cfg.sync_phases) {
          launch(b, false);
        } else {
          PRUNEX_CHECK(b.work != nullptr, "bucket never launched (a gradient missing?)");
          b.work->wait();
          b.work.reset();
        }
        land(b);
      }
    });
    clock_->fence(comm_);
    clock_->time(phase::local_compute, [&] {
      torch::NoGradGuard no_grad;
      const float inv =
          mode_ == Strategy::fp16 ? 1.0f : 1.0f / static_cast<float>(comm_.size(Group::world));
      for (size_t l = 0; l < s_.params.size(); ++l) {
        auto& gr = s_.params[l].mutable_grad();
        // On a device: written in host memory, then copied over.
        torch::Tensor h = gr.device().is_cpu() ? gr : torch::empty(gr.sizes());
        const float* src = buckets_[slot_[l].bucket].data.data() + slot_[l].offset;
        float* dst = h.data_ptr<float>();
        for (int64_t i = 0, n = gr.numel(); i < n; ++i) {
          dst[i] = src[i] * inv;
          // The averaged gradient is the same on every rank: all stop alike.
          if (!std::isfinite(dst[i]))
            throw_non_finite(s_.layout, l, "the averaged gradient", iteration_);
        }
        if (!gr.device().is_cpu()) gr.copy_(h);
      }
      if (!acc_.empty())
        for (size_t l = 0; l < acc_.size(); ++l)
          acc_[l].mul_(kCgxAccumulatorDecay).add_(host_tensor(s_.params[l].grad()));
    });
    ++steps_per_iteration_;
  }

  // After the optimiser step: pactrain's mask tracker, cgx's adaptive bits.
  void after_step() {
    ++step_;
    if (mode_ == Strategy::pactrain)
      for (auto& b : buckets_) track_mask(b);
    if (mode_ == Strategy::cgx && s_.cfg.adaptive_bits && step_ % s_.cfg.adapt_every == 0)
      choose_bits();
  }

  // The bucket's mask now: the pruning masks of its layers (all ones for layers that are not
  // pruned). Rank 0 decided them and broadcast them, so every rank packs the same positions;
  // a kept weight that happens to be zero keeps travelling.
  std::vector<uint8_t> mask_of(const Bucket& b) const {
    std::vector<uint8_t> m(static_cast<size_t>(b.floats), 1);
    for (size_t i = 0; i < b.layers.size(); ++i) {
      const int l = b.layers[i];
      if (!masks_[l].defined()) continue;
      const float* mk = masks_[l].data_ptr<float>();
      for (int64_t j = 0, n = masks_[l].numel(); j < n; ++j) m[b.offsets[i] + j] = mk[j] != 0;
    }
    return m;
  }
  void remember_mask(Bucket& b) {
    b.mask = mask_of(b);
    b.kept.clear();
    for (int64_t i = 0; i < b.floats; ++i)
      if (b.mask[i]) b.kept.push_back(i);
  }
  void track_mask(Bucket& b) {
    if (mask_of(b) == b.mask) {
      ++b.stable;
      return;
    }
    remember_mask(b);
    b.stable = 0;
  }

  void build_codecs() {
    for (auto& b : buckets_)
      b.codec = std::make_unique<CgxBufferCodec>(cgx_bucket_codec(
          s_.layout, b.layers, b.offsets, bits_, s_.cfg.bucket_size, s_.cfg.adaptive_bits));
  }

  // Rank 0 clusters the compressed layers and broadcasts their bits (int32 per layer).
  void choose_bits() {
    std::vector<int32_t> bits(bits_.begin(), bits_.end());
    if (comm_.world_rank() == 0) {
      std::vector<int> layers;
      std::vector<double> sizes, norms;
      for (size_t l = 0; l < s_.layout.layers.size(); ++l) {
        if (!cgx_compresses(s_.layout.layers[l])) continue;
        layers.push_back(static_cast<int>(l));
        sizes.push_back(static_cast<double>(acc_[l].numel()));
        norms.push_back(top_k_norm(acc_[l].data_ptr<float>(), acc_[l].numel(), kCgxTopEntries));
      }
      const std::vector<int> chosen = cgx_adaptive_bits(sizes, norms);
      for (size_t i = 0; i < layers.size(); ++i) bits[layers[i]] = chosen[i];
    }
    comm_.broadcast(bits.data(), bits.size(), DType::i32, 0, Group::world);
    bits_.assign(bits.begin(), bits.end());
    build_codecs();
  }

  TrainSetup& s_;
  Communicator& comm_;
  Strategy mode_;
  std::vector<Bucket> buckets_;
  std::vector<Slot> slot_;
  std::vector<torch::Tensor> masks_;  // pactrain, per layer (undefined: not pruned)
  std::vector<int> bits_;             // cgx, per layer
  std::vector<torch::Tensor> acc_;    // cgx --adaptive-bits, rank 0: decayed gradient sums
  PhaseClock* clock_ = nullptr;
  int64_t steps_per_iteration_ = 0;
  int64_t step_ = 0;  // local steps so far (seeds)
  int iteration_ = 0;
};

}  // namespace

std::unique_ptr<LiveStrategy> make_ddp(TrainSetup& s, Communicator& comm) {
  return std::make_unique<BucketedStrategy>(s, comm);
}

}  // namespace prunex
