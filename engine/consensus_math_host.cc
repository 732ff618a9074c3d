// ConsensusMath in host memory: the CPU functions of this folder, unchanged.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/consensus_math.h"
#include "engine/error.h"
#include "engine/projection.h"
#include "engine/residuals.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

class HostConsensusMath final : public ConsensusMath {
 public:
  SpaceMemory& memory() const override { return host_space(); }

  void add_proximal(float* grad, const float* theta, const float* z_i, const float* u, double rho1,
                    int64_t n) override {
    add_proximal_gradient(grad, theta, z_i, u, rho1, n);
  }
  void theta_plus_u(const float* theta, const float* u, float* buf, int64_t n) override {
    prunex::theta_plus_u(theta, u, buf, n);
  }
  void node_candidate(const float* sum, const float* z, const float* v, const CandidateParams& p,
                      float* out, int64_t n) override {
    prunex::node_candidate(sum, z, v, p, out, n);
  }
  void duals(float* u, float* v, const float* theta, const float* z_i, const float* z,
             int64_t n) override {
    if (v) update_v(v, z_i, z, n);
    update_u(u, theta, z_i, n);
  }
  void rescale(float* x, double factor, int64_t n) override { rescale_dual(x, factor, n); }

  ModelMask project(float* const* w, const ModelLayout& layout, const SparsitySpec& spec) override {
    return project_model(w, layout, spec);
  }
  void apply_mask(float* const* w, const ModelMask& m) override {
    for (size_t l = 0; l < m.size(); ++l)
      if (m.pruned(l)) prunex::apply_mask(w[l], m[l]);
  }

  void residual_partials(const ResidualInputs& in, double* sums) override {
    const std::vector<int64_t>& off = *in.offset;
    const int L = static_cast<int>(off.size()) - 1;
    ResidualPartials p(L);
    for (int l = 0; l < L; ++l) {
      const int64_t o = off[l], n = off[l + 1] - off[l];
      p.add_intra(l, in.theta + o, in.z_i + o, in.z_i_prev + o, in.u + o, n);
      if (in.inter) p.add_inter(l, in.z_i + o, in.z + o, in.z_prev + o, in.v + o, n);
    }
    std::memcpy(sums, p.data(), p.size() * sizeof(double));
  }

  void set_plan(const CompactionPlan* plan, int pad_to, DType wire) override {
    plan_ = plan;
    wire_ = wire;
    buckets_.reset();
    wire_buckets_.reset();
    if (!plan) return;
    if (wire == DType::f32)
      buckets_ = std::make_unique<BucketSet>(*plan, pad_to);
    else
      wire_buckets_ = std::make_unique<WireBucketSet>(*plan, pad_to);
  }
  int buckets() const override {
    return buckets_ ? buckets_->size() : wire_buckets_ ? wire_buckets_->size() : 0;
  }
  void* bucket(int b) override {
    return buckets_ ? static_cast<void*>(buckets_->bucket(b))
                    : static_cast<void*>(wire_buckets_->bucket(b));
  }
  int64_t bucket_values(int b) const override {
    return buckets_ ? buckets_->values(b) : wire_buckets_->values(b);
  }
  int64_t bucket_padded(int b) const override {
    return buckets_ ? buckets_->padded_values(b) : wire_buckets_->padded_values(b);
  }
  void pack(const float* const* z, const float* const* v, int b) override {
    PRUNEX_CHECK(plan_ != nullptr, "pack without a compaction plan");
    if (buckets_) {
      if (b < 0)
        prunex::pack(*plan_, z, v, buckets_->data());
      else
        pack_bucket(*plan_, z, v, buckets_->bucket(b), b);
    } else if (b < 0) {
      pack_wire(*plan_, wire_, z, v, wire_buckets_->data());
    } else {
      pack_wire_bucket(*plan_, wire_, z, v, wire_buckets_->bucket(b), b);
    }
  }
  void unpack(float* const* out, float scale, int b) override {
    PRUNEX_CHECK(plan_ != nullptr, "unpack without a compaction plan");
    if (buckets_) {
      if (b < 0)
        prunex::unpack(*plan_, buckets_->data(), out, scale);
      else
        unpack_bucket(*plan_, buckets_->bucket(b), out, scale, b);
    } else if (b < 0) {
      unpack_wire(*plan_, wire_, wire_buckets_->data(), out, scale);
    } else {
      unpack_wire_bucket(*plan_, wire_, wire_buckets_->bucket(b), out, scale, b);
    }
  }

 private:
  const CompactionPlan* plan_ = nullptr;
  DType wire_ = DType::f32;
  std::unique_ptr<BucketSet> buckets_;
  std::unique_ptr<WireBucketSet> wire_buckets_;
};

}  // namespace

std::unique_ptr<ConsensusMath> make_host_consensus_math() {
  return std::make_unique<HostConsensusMath>();
}

}  // namespace prunex
