// fp16 (bucket_codec.h): PyTorch's fp16_compress_hook (torch/distributed/algorithms/
// ddp_comm_hooks/default_hooks.py): the bucket divided by the world size, cast to fp16,
// summed in fp16 (engine/wire_dtype.h), cast back; the average lands in the bucket.
#include "engine/wire_dtype.h"
#include "workloads/train/bucket_codec.h"

namespace prunex {
namespace {

class Fp16Codec : public BucketCodec {
 public:
  Fp16Codec(Communicator& comm, const std::vector<GradBucket>& buckets) : comm_(comm) {
    for (const auto& b : buckets) wire_.emplace_back(static_cast<size_t>(b.floats), 0);
  }
  std::unique_ptr<Work> launch(GradBucket& b, int64_t, bool async) override {
    std::vector<uint16_t>& w = wire_[b.index];
    const float inv = 1.0f / static_cast<float>(comm_.size(Group::world));
    for (int64_t i = 0; i < b.floats; ++i) w[i] = float_to_f16(b.data[i] * inv);
    if (async)
      return comm_.allreduce_async(w.data(), w.size(), DType::f16, ReduceOp::sum, Group::world);
    comm_.allreduce(w.data(), w.size(), DType::f16, ReduceOp::sum, Group::world);
    return nullptr;
  }
  bool decodes() const override { return true; }
  void land(GradBucket& b) override {
    const std::vector<uint16_t>& w = wire_[b.index];
    for (int64_t i = 0; i < b.floats; ++i) b.data[i] = f16_to_float(w[i]);
  }
  bool averages() const override { return true; }

 private:
  Communicator& comm_;
  std::vector<std::vector<uint16_t>> wire_;  // per bucket
};

}  // namespace

std::unique_ptr<BucketCodec> make_fp16_codec(Communicator& comm,
                                             const std::vector<GradBucket>& buckets) {
  return std::make_unique<Fp16Codec>(comm, buckets);
}

}  // namespace prunex
