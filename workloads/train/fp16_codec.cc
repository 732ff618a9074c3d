// fp16 (bucket_codec.h): PyTorch's fp16_compress_hook (torch/distributed/algorithms/
// ddp_comm_hooks/default_hooks.py): the bucket divided by the world size, cast to fp16,
// summed in fp16, cast back; the average lands in the bucket. Device-native: the casts are
// LibTorch ops where the bucket lives (the GPU under --backend nccl), the sum NCCL's or
// MPI's fp16 sum (engine/wire_dtype.h); the casts round to nearest even, as
// engine/wire_dtype.h's float_to_f16.
#include <torch/torch.h>

#include "workloads/train/bucket_codec.h"
#include "workloads/train/train_setup.h"

namespace prunex {
namespace {

class Fp16Codec : public BucketCodec {
 public:
  Fp16Codec(TrainSetup& s, Communicator& comm, const std::vector<GradBucket>& buckets)
      : device_(s.device), comm_(comm) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat16).device(device_);
    for (const auto& b : buckets) wire_.push_back(torch::zeros({b.floats}, opts));
  }
  std::unique_ptr<Work> launch(GradBucket& b, int64_t, bool async) override {
    torch::NoGradGuard no_grad;
    torch::Tensor& w = wire_[b.index];
    torch::Tensor v = payload(b);
    v.mul_(1.0f / static_cast<float>(comm_.size(Group::world)));
    w.copy_(v);
    void* p = w.data_ptr();
    const auto n = static_cast<std::size_t>(b.floats);
    if (async) return comm_.allreduce_async(p, n, DType::f16, ReduceOp::sum, Group::world);
    comm_.allreduce(p, n, DType::f16, ReduceOp::sum, Group::world);
    return nullptr;
  }
  bool decodes() const override { return true; }
  void land(GradBucket& b) override {
    torch::NoGradGuard no_grad;
    payload(b).copy_(wire_[b.index]);
  }
  bool averages() const override { return true; }

 private:
  torch::Tensor payload(const GradBucket& b) const {
    return torch::from_blob(b.payload, {b.floats},
                            torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  }

  torch::Device device_;
  Communicator& comm_;
  std::vector<torch::Tensor> wire_;  // per bucket, fp16, beside the bucket
};

}  // namespace

std::unique_ptr<BucketCodec> make_fp16_codec(TrainSetup& s, Communicator& comm,
                                             const std::vector<GradBucket>& buckets) {
  return std::make_unique<Fp16Codec>(s, comm, buckets);
}

}  // namespace prunex
