// pactrain (bucket_codec.h; engine/pactrain.h): gradients masked by the pruning mask; a bucket
// whose mask (the nonzero weights of its pruned layers) has been unchanged for --stable-steps
// steps travels as its kept values only, packed in layout order; --ternary sends TernGrad
// levels (a MAX all-reduce of the bucket's scaler first, then an int8 SUM).
// Device-native: the masks, the compaction (a gather of the kept positions) and the levels are
// LibTorch ops and PeerKernels (engine/peer_kernels.h) where the bucket lives, the GPU under
// --backend nccl. A mask is stable for as many steps as have run since it was made or restored
// (the masks change at no other time).
#include <algorithm>
#include <cstdio>
#include <limits>

#include "engine/pactrain.h"
#include "engine/peer_kernels.h"
#include "workloads/train/bucket_codec.h"
#include "workloads/train/pactrain_prune.h"
#include "workloads/train/train_setup.h"

namespace prunex {
namespace {

class PactrainCodec : public BucketCodec {
 public:
  PactrainCodec(TrainSetup& s, Communicator& comm, const std::vector<GradBucket>& buckets)
      : s_(s), comm_(comm), kernels_(peer_kernels(s)), buckets_(buckets), state_(buckets.size()) {
    // The one-off pruning moves host copies: the control communicator's traffic.
    if (!s.cfg.init.empty()) {
      const int k = pactrain_init_model(s, s.control());
      if (comm.world_rank() == 0)
        std::printf("pactrain: pruning the ddp model of %s (iteration %d)\n", s.cfg.init.c_str(),
                    k);
    } else if (comm.world_rank() == 0) {
      std::printf("pactrain: pruning the freshly initialised model (no --init)\n");
    }
    masks_ = pactrain_prune(s, s.control());
    masks_.resize(s.params.size());
    for (const auto& b : buckets_) remember_mask(b);
  }

  std::unique_ptr<Work> launch(GradBucket& b, int64_t step, bool async) override {
    torch::NoGradGuard no_grad;
    State& st = state_[b.index];
    st.compacted = st.stable >= s_.cfg.stable_steps;
    torch::Tensor bucket = flat_view(s_, b.payload, b.floats);
    if (st.mask.defined()) bucket.mul_(st.mask);  // g <- g * m
    st.wire = st.compacted ? bucket.index_select(0, st.kept) : bucket;
    float* payload = st.wire.data_ptr<float>();
    const int64_t n = st.wire.numel();
    if (!s_.cfg.pactrain.ternary)
      return start(payload, static_cast<std::size_t>(n), DType::f32, async);
    // max |g|; a NaN or an Inf makes it Inf on every rank (MAX), as engine/pactrain.h's max_abs.
    torch::Tensor scaler = n ? st.wire.abs().max() : torch::zeros({}, bucket.options());
    const double inf = std::numeric_limits<double>::infinity();
    scaler = torch::nan_to_num(scaler, inf, inf).reshape({1});
    comm_.allreduce(scaler.data_ptr<float>(), 1, DType::f32, ReduceOp::max, Group::world);
    st.scaler = scaler.item<float>();
    st.levels = torch::empty({n}, bucket.options().dtype(torch::kInt8));
    const uint64_t seed = (static_cast<uint64_t>(s_.cfg.seed) << 40) ^
                          (static_cast<uint64_t>(comm_.world_rank()) << 32) ^
                          (static_cast<uint64_t>(step) << 8) ^ static_cast<uint64_t>(b.index);
    kernels_.ternarize(payload, n, st.scaler, seed, st.levels.data_ptr<int8_t>());
    return start(st.levels.data_ptr(), static_cast<std::size_t>(n), DType::i8, async);
  }

  bool decodes() const override { return true; }
  void land(GradBucket& b) override {
    torch::NoGradGuard no_grad;
    State& st = state_[b.index];
    if (s_.cfg.pactrain.ternary) st.wire.copy_(st.levels.to(torch::kFloat32).mul_(st.scaler));
    if (st.compacted) {
      torch::Tensor bucket = flat_view(s_, b.payload, b.floats);
      bucket.zero_().index_copy_(0, st.kept, st.wire);
    }
    st.wire = st.levels = torch::Tensor();
  }

  // The masks change only when they are made or restored (both remember_mask), never during
  // training (engine/pactrain.h): each step is one more step of an unchanged mask.
  void after_step(int64_t) override {
    for (State& st : state_) ++st.stable;
  }

  // The nonzero fraction of each pruned weight (stays <= 1 - ratio: pruned weights never
  // regrow, since their gradients are masked).
  void report(std::map<std::string, double>& density) const override {
    for (size_t l = 0; l < masks_.size(); ++l)
      if (masks_[l].defined())
        density[s_.layout.layers[l].name] =
            s_.params[l].ne(0).sum().item<double>() / static_cast<double>(s_.params[l].numel());
  }

  void save_state(StateSections& st) const override {
    std::vector<int64_t> stable;
    for (const auto& b : state_) stable.push_back(b.stable);
    put_state(st, "pactrain/stable", stable);
    for (size_t l = 0; l < masks_.size(); ++l)
      if (masks_[l].defined()) {
        const float* p = masks_[l].data_ptr<float>();
        put_state(st, "pactrain/mask/" + std::to_string(l),
                  std::vector<float>(p, p + masks_[l].numel()));
      }
  }
  void load_state(const StateSections& st) override {
    const auto stable =
        get_state<int64_t>(st, "pactrain/stable", static_cast<int64_t>(state_.size()));
    for (size_t b = 0; b < state_.size(); ++b) state_[b].stable = stable[b];
    for (size_t l = 0; l < masks_.size(); ++l)
      if (masks_[l].defined()) {
        const auto v =
            get_state<float>(st, "pactrain/mask/" + std::to_string(l), masks_[l].numel());
        std::copy(v.begin(), v.end(), masks_[l].data_ptr<float>());
      }
    for (const auto& b : buckets_) remember_mask(b);  // the restored weights' (unchanged) mask
  }

 private:
  // Per bucket: how many steps its mask has stayed; where the bucket lives: the mask as 0/1
  // floats (undefined when the bucket has no pruned layer) and the kept positions (int64);
  // this step's wire values (the bucket or its compact copy), ternary levels and scaler.
  struct State {
    int64_t stable = 0;
    torch::Tensor mask, kept;
    torch::Tensor wire, levels;
    float scaler = 0;
    bool compacted = false;  // this step's payload is the compact one
  };

  std::unique_ptr<Work> start(void* p, std::size_t n, DType t, bool async) {
    if (async) return comm_.allreduce_async(p, n, t, ReduceOp::sum, Group::world);
    comm_.allreduce(p, n, t, ReduceOp::sum, Group::world);
    return nullptr;
  }

  // The bucket's mask now: the pruning masks of its layers (all ones for layers that are not
  // pruned). Rank 0 decided them and broadcast them, so every rank packs the same positions;
  // a kept weight that happens to be zero keeps travelling.
  std::vector<uint8_t> mask_of(const GradBucket& b) const {
    std::vector<uint8_t> m(static_cast<size_t>(b.floats), 1);
    for (size_t i = 0; i < b.layers.size(); ++i) {
      const int l = b.layers[i];
      if (!masks_[l].defined()) continue;
      const float* mk = masks_[l].data_ptr<float>();
      for (int64_t j = 0, n = masks_[l].numel(); j < n; ++j) m[b.offsets[i] + j] = mk[j] != 0;
    }
    return m;
  }
  void remember_mask(const GradBucket& b) {
    State& st = state_[b.index];
    const std::vector<uint8_t> bytes = mask_of(b);
    std::vector<int64_t> kept;
    std::vector<float> mask(bytes.begin(), bytes.end());
    for (int64_t i = 0; i < b.floats; ++i)
      if (bytes[i]) kept.push_back(i);
    st.kept = torch::tensor(kept, torch::kInt64).to(s_.device);
    const bool pruned =
        std::any_of(b.layers.begin(), b.layers.end(), [&](int l) { return masks_[l].defined(); });
    st.mask = pruned ? torch::tensor(mask, torch::kFloat32).to(s_.device) : torch::Tensor();
  }

  TrainSetup& s_;
  Communicator& comm_;
  PeerKernels& kernels_;
  const std::vector<GradBucket>& buckets_;
  std::vector<State> state_;          // per bucket
  std::vector<torch::Tensor> masks_;  // per layer (undefined: not pruned)
};

}  // namespace

std::unique_ptr<BucketCodec> make_pactrain_codec(TrainSetup& s, Communicator& comm,
                                                 const std::vector<GradBucket>& buckets) {
  return std::make_unique<PactrainCodec>(s, comm, buckets);
}

}  // namespace prunex
