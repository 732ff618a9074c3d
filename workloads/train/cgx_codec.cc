// cgx (bucket_codec.h; engine/cgx_quantize.h, cgx_allreduce.h): quantized buckets reduced by
// CGX's scatter-reduce-allgather and leaders' ring over point-to-point messages, after
// backward (no overlap: the reduction is a chain of blocking hops), timed as the allreduce
// phase. --adaptive-bits: rank 0 keeps decayed gradient sums and re-chooses each compressed
// layer's bits every --adapt-every steps.
// Device-native: the quantization and dequantization are PeerKernels (engine/peer_kernels.h)
// where the bucket lives, the GPU under --backend nccl, the hops NCCL's point-to-point
// messages between device buffers; the decayed sums stay beside the gradients, and rank 0
// copies them to the host only to choose the bits.
#include "engine/cgx_adaptive.h"
#include "engine/cgx_allreduce.h"
#include "workloads/train/bucket_codec.h"
#include "workloads/train/train_setup.h"

namespace prunex {
namespace {

class CgxCodec : public BucketCodec {
 public:
  CgxCodec(TrainSetup& s, Communicator& comm, const std::vector<GradBucket>& buckets)
      : s_(s),
        comm_(comm),
        kernels_(peer_kernels(s)),
        buckets_(buckets),
        bits_(s.params.size(), s.cfg.cgx.bits) {
    build_codecs();
    if (s.cfg.adaptive_bits && comm.world_rank() == 0)
      for (const auto& p : s.params) acc_.push_back(torch::zeros_like(p));
  }

  std::unique_ptr<Work> launch(GradBucket& b, int64_t step, bool) override {
    cgx_allreduce(comm_, b.payload, *codecs_[b.index],
                  {s_.cfg.stochastic_rounding,
                   (static_cast<uint64_t>(s_.cfg.seed) * 1000003ull + step) * 1009ull +
                       static_cast<uint64_t>(b.index)},
                  kernels_, scratch_);
    return nullptr;
  }
  bool overlaps_backward() const override { return false; }

  void after_gradients() override {
    for (size_t l = 0; l < acc_.size(); ++l)
      acc_[l].mul_(kCgxAccumulatorDecay).add_(s_.params[l].grad());
  }
  void after_step(int64_t step) override {
    if (s_.cfg.adaptive_bits && step % s_.cfg.adapt_every == 0) choose_bits();
  }

  void save_state(StateSections& st) const override {
    put_state(st, "cgx/bits", std::vector<int32_t>(bits_.begin(), bits_.end()));
    for (size_t l = 0; l < acc_.size(); ++l) {
      const torch::Tensor h = host_tensor(acc_[l]);
      const float* p = h.data_ptr<float>();
      put_state(st, "cgx/acc/" + std::to_string(l), std::vector<float>(p, p + h.numel()));
    }
  }
  void load_state(const StateSections& st) override {
    const auto bits = get_state<int32_t>(st, "cgx/bits", static_cast<int64_t>(bits_.size()));
    bits_.assign(bits.begin(), bits.end());
    build_codecs();
    for (size_t l = 0; l < acc_.size(); ++l) {
      auto v = get_state<float>(st, "cgx/acc/" + std::to_string(l), acc_[l].numel());
      acc_[l].copy_(torch::from_blob(v.data(), acc_[l].sizes()));
    }
  }
  // Another shape: the bits (agreed by all ranks) stay; each rank's error feedback from zero.
  void restart_rank_state() override {
    for (auto& a : acc_) a.zero_();
  }

 private:
  void build_codecs() {
    codecs_.clear();
    for (const auto& b : buckets_)
      codecs_.push_back(std::make_unique<CgxBufferCodec>(cgx_bucket_codec(
          s_.layout, b.layers, b.offsets, bits_, s_.cfg.cgx.bucket_size, s_.cfg.adaptive_bits)));
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
        const torch::Tensor h = host_tensor(acc_[l]);
        norms.push_back(top_k_norm(h.data_ptr<float>(), h.numel(), kCgxTopEntries));
      }
      const std::vector<int> chosen = cgx_adaptive_bits(sizes, norms);
      for (size_t i = 0; i < layers.size(); ++i) bits[layers[i]] = chosen[i];
    }
    s_.control().broadcast(bits.data(), bits.size(), DType::i32, 0, Group::world);
    bits_.assign(bits.begin(), bits.end());
    build_codecs();
  }

  TrainSetup& s_;
  Communicator& comm_;
  PeerKernels& kernels_;
  CgxScratch scratch_;  // the wire buffers, kept from call to call
  const std::vector<GradBucket>& buckets_;
  std::vector<int> bits_;                                // per layer
  std::vector<std::unique_ptr<CgxBufferCodec>> codecs_;  // per bucket
  std::vector<torch::Tensor> acc_;  // --adaptive-bits, rank 0: decayed gradient sums (device)
};

}  // namespace

std::unique_ptr<BucketCodec> make_cgx_codec(TrainSetup& s, Communicator& comm,
                                            const std::vector<GradBucket>& buckets) {
  return std::make_unique<CgxCodec>(s, comm, buckets);
}

}  // namespace prunex
