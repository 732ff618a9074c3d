#include "backends/cuda/cuda_consensus_math.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "backends/cuda/admm_kernels.h"
#include "backends/cuda/consensus_kernels.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/device_space.h"
#include "backends/cuda/gpu_compaction.h"
#include "backends/cuda/gpu_projection.h"
#include "engine/error.h"
#include "engine/residuals.h"

namespace prunex {
namespace {

constexpr int64_t kResidualTile = 1 << 16;  // elements per block of the residual kernel

class CudaConsensusMath final : public ConsensusMath {
 public:
  SpaceMemory& memory() const override { return *memory_; }

  void add_proximal(float* grad, const float* theta, const float* z_i, const float* u, double rho1,
                    int64_t n) override {
    add_proximal_gpu(grad, theta, z_i, u, rho1, n, s());
    sync();
  }
  void add_proximal_layers(const std::vector<ProximalTerm>& terms) override {
    for (const ProximalTerm& t : terms)
      add_proximal_gpu(t.grad, t.theta, t.z_i, t.u, t.rho1, t.n, s());
    sync();
  }
  void theta_plus_u(const float* theta, const float* u, float* buf, int64_t n) override {
    theta_plus_u_gpu(theta, u, buf, n, s());
    sync();
  }
  void node_candidate(const float* sum, const float* z, const float* v, const CandidateParams& p,
                      float* out, int64_t n) override {
    node_candidate_gpu(sum, z, v, nullptr, p, out, n, s());
    sync();
  }
  void duals(float* u, float* v, const float* theta, const float* z_i, const float* z,
             int64_t n) override {
    if (v)
      dual_updates_gpu(u, v, theta, z_i, z, n, s());
    else
      update_u_gpu(u, theta, z_i, n, s());
    sync();
  }
  void rescale(float* x, double factor, int64_t n) override {
    rescale_gpu(x, factor, n, s());
    sync();
  }

  ModelMask project(float* const* w, const ModelLayout& layout, const SparsitySpec& spec) override {
    return project_model_gpu(w, layout, spec, s());
  }
  void apply_mask(float* const* w, const ModelMask& m) override {
    // The element masks of a mask are built once: masks stay frozen once applied.
    if (!(masked_ == m)) {
      masked_ = m;
      keep_.clear();
      for (size_t l = 0; l < m.size(); ++l)
        if (m.pruned(l)) keep_.emplace(l, DeviceArray<uint8_t>(element_mask(m[l])));
    }
    for (const auto& [l, keep] : keep_)
      zero_pruned_gpu(w[l], keep.data(), static_cast<int64_t>(keep.size()), s());
    sync();
  }

  void residual_partials(const ResidualInputs& in, double* sums) override {
    const std::vector<int64_t>& off = *in.offset;
    const int L = static_cast<int>(off.size()) - 1;
    if (tiles_offsets_ != off) {
      tiles_offsets_ = off;
      const auto tiles = residual_tiles(off, kResidualTile);
      tiles_ = DeviceArray<ResidualTile>(tiles);
      first_tile_ = DeviceArray<int32_t>(residual_first_tiles(tiles, L));
      partials_ = DeviceArray<double>(std::max<size_t>(1, tiles.size() * 11));
    }
    std::vector<double> init(static_cast<size_t>(L) * ResidualPartials::kFields, 0.0);
    for (int l = 0; l < L; ++l) {
      const auto n = static_cast<double>(off[l + 1] - off[l]);
      init[l * ResidualPartials::kFields + ResidualPartials::intra_count] = n;
      if (in.inter) init[l * ResidualPartials::kFields + ResidualPartials::inter_count] = n;
    }
    memory_->from_host(sums, init.data(), static_cast<int64_t>(init.size() * sizeof(double)));
    residual_sums_gpu(tiles_.data(), static_cast<int>(tiles_.size()), first_tile_.data(), L,
                      in.theta, in.z_i, in.z_i_prev, in.u, in.inter ? in.z : nullptr, in.z_prev,
                      in.v, partials_.data(), sums, s());
    sync();
  }

  void set_plan(const CompactionPlan* plan, int pad_to, DType wire) override {
    compaction_.reset();
    stream_ = DeviceMemory();
    if (!plan) return;
    PRUNEX_USAGE(wire == DType::f32, "--wire-dtype ", dtype_name(wire),
                 " is not on the GPU in this version (f32 only)");
    compaction_ = std::make_unique<GpuCompaction>(*plan);
    capacity_ = plan->bucket_capacity();
    const int64_t floats = std::max<int64_t>(1, capacity_ * compaction_->buckets());
    stream_ = DeviceMemory(static_cast<size_t>(floats) * sizeof(float));
    PRUNEX_CUDA_CHECK(cudaMemsetAsync(stream_.get(), 0, stream_.bytes(), s()));
    // hsadmm-rail: buckets padded to pad_to equal slices live apart from the kernels' stream
    // (whose buckets sit capacity floats apart), at a stride of capacity rounded up.
    pad_ = pad_to;
    stride_ = pad_ > 1 ? (capacity_ + pad_ - 1) / pad_ * pad_ : capacity_;
    rail_ = DeviceMemory();
    if (pad_ > 1) {
      rail_ = DeviceMemory(static_cast<size_t>(std::max<int64_t>(1, stride_ * buckets())) * 4);
      PRUNEX_CUDA_CHECK(cudaMemsetAsync(rail_.get(), 0, rail_.bytes(), s()));
    }
    sync();
  }
  int buckets() const override { return compaction_ ? compaction_->buckets() : 0; }
  void* bucket(int b) override {
    return pad_ > 1 ? static_cast<float*>(rail_.get()) + b * stride_
                    : compaction_->bucket(stream(), b);
  }
  int64_t bucket_values(int b) const override { return compaction_->bucket_floats(b); }
  int64_t bucket_padded(int b) const override {
    return (compaction_->bucket_floats(b) + pad_ - 1) / pad_ * pad_;
  }
  void pack(const float* const* z, const float* const* v, int b) override {
    PRUNEX_CHECK(compaction_ != nullptr, "pack without a compaction plan");
    if (b > 0) return;  // packed with bucket 0
    compaction_->pack(z, v, stream(), s());
    move_rail_buckets(/*to_rail=*/true);
    sync();
  }
  void unpack(float* const* out, float scale, int b) override {
    PRUNEX_CHECK(compaction_ != nullptr, "unpack without a compaction plan");
    if (b >= 0 && b + 1 < buckets()) return;  // unpacked with the last bucket
    move_rail_buckets(/*to_rail=*/false);
    compaction_->unpack(stream(), out, scale, s());
    sync();
  }

 private:
  cudaStream_t s() const { return stream_handle_.get(); }
  void sync() const { stream_handle_.synchronize(); }
  float* stream() const { return static_cast<float*>(stream_.get()); }
  // hsadmm-rail: the kernels' buckets to their padded places and back (zeros stay past
  // each bucket's values).
  void move_rail_buckets(bool to_rail) {
    if (pad_ <= 1) return;
    for (int b = 0; b < buckets(); ++b) {
      float* packed = compaction_->bucket(stream(), b);
      float* padded = static_cast<float*>(rail_.get()) + b * stride_;
      const size_t bytes = static_cast<size_t>(bucket_values(b)) * 4;
      PRUNEX_CUDA_CHECK(cudaMemcpyAsync(to_rail ? padded : packed, to_rail ? packed : padded, bytes,
                                        cudaMemcpyDeviceToDevice, s()));
    }
  }

  CudaStream stream_handle_;
  std::unique_ptr<SpaceMemory> memory_ = make_device_space(stream_handle_.get());
  ModelMask masked_;
  std::map<size_t, DeviceArray<uint8_t>> keep_;
  std::vector<int64_t> tiles_offsets_;
  DeviceArray<ResidualTile> tiles_;
  DeviceArray<int32_t> first_tile_;  // residual_first_tiles of tiles_
  DeviceArray<double> partials_;     // per tile, its 11 sums (scratch)
  std::unique_ptr<GpuCompaction> compaction_;
  DeviceMemory stream_;
  int64_t capacity_ = 0;
  int pad_ = 1;
  int64_t stride_ = 0;
  DeviceMemory rail_;
};

}  // namespace

std::unique_ptr<ConsensusMath> make_cuda_consensus_math() {
  return std::make_unique<CudaConsensusMath>();
}

}  // namespace prunex
