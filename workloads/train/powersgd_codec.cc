// powersgd (bucket_codec.h; engine/powersgd.h): PyTorch's powerSGD_hook
// (torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py). Before
// --start-powersgd-iter local steps, a bucket is averaged whole (the hook's default
// all-reduce: divided by the world size, then summed). From then on, per bucket: the error
// left by the last step is added (--use-error-feedback); the tensors that do not pay to
// compress are all-reduced whole and averaged; each other gradient M (rows x cols) meets its
// Q (cols x r: the last step's with --warm-start, else a fresh random one the ranks draw
// alike), orthogonalized; P = M Q is summed over the ranks and orthogonalized; Q = M^T P is
// averaged; M becomes P Q^T; the error is what that lost. The three all-reduces run one after
// the other, after backward (no overlap), timed as the allreduce phase.
// Device-native: the bucket, P, Q and the error live where the bucket does (the GPU under
// --backend nccl); only a fresh Q is drawn on the host, from a generator seeded by --seed,
// the bucket and the draw, and copied over.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "engine/powersgd.h"
#include "workloads/train/bucket_codec.h"
#include "workloads/train/train_setup.h"

namespace prunex {
namespace {

// The columns of m (rows x r) orthonormal, as the hook's _orthogonalize: Gram-Schmidt for
// r <= 2 (each column divided by its norm + eps, then removed from the columns after it), a
// reduced QR factorization's Q otherwise.
void orthogonalize(torch::Tensor m, double eps) {
  const int64_t r = m.size(1);
  if (r > 2) {
    m.copy_(std::get<0>(torch::linalg_qr(m)));
    return;
  }
  for (int64_t i = 0; i < r; ++i) {
    torch::Tensor col = m.narrow(1, i, 1);
    if (eps == 0)
      col.div_(col.norm());
    else
      col.div_(col.norm() + eps);
    for (int64_t j = i + 1; j < r; ++j) {
      torch::Tensor rest = m.narrow(1, j, 1);
      rest.sub_((col * rest).sum() * col);
    }
  }
}

class PowerSgdCodec : public BucketCodec {
 public:
  PowerSgdCodec(TrainSetup& s, Communicator& comm, const std::vector<GradBucket>& buckets)
      : s_(s), comm_(comm), world_(static_cast<float>(comm.size(Group::world))) {
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(s.device);
    for (const auto& b : buckets) {
      DdpBucket db;
      db.layers = b.layers;
      db.offsets = b.offsets;
      db.floats = b.floats;
      shapes_.push_back(powersgd_bucket(s.layout, db, s.cfg.powersgd.matrix_approximation_rank,
                                        s.cfg.powersgd.min_compression_rate));
      p_.push_back(torch::zeros({shapes_.back().p_floats}, opts));
      q_.push_back(torch::zeros({shapes_.back().q_floats}, opts));
      error_.push_back(torch::zeros({b.floats}, opts));
    }
    draws_.assign(buckets.size(), 0);
  }

  std::unique_ptr<Work> launch(GradBucket& b, int64_t step, bool) override {
    torch::NoGradGuard no_grad;
    torch::Tensor flat = flat_view(s_, b.payload, b.floats);
    if (step < s_.cfg.start_powersgd_iter) {  // the hook's default: averaged whole
      flat.div_(world_);
      comm_.allreduce(b.payload, static_cast<std::size_t>(b.floats), DType::f32, ReduceOp::sum,
                      Group::world);
      return nullptr;
    }
    const PowerSgdBucket& shape = shapes_[static_cast<size_t>(b.index)];
    torch::Tensor& error = error_[static_cast<size_t>(b.index)];
    torch::Tensor before;
    if (s_.cfg.use_error_feedback) {
      flat.add_(error);
      before = flat.clone();
    }
    reduce_whole(flat, shape);
    if (shape.p_floats > 0) reduce_factors(b.index, flat, shape);
    if (s_.cfg.use_error_feedback) error.copy_(before - flat);
    return nullptr;
  }
  bool overlaps_backward() const override { return false; }
  bool averages() const override { return true; }

  void save_state(StateSections& st) const override {
    put_state(st, "powersgd/draws", draws_);
    for (size_t i = 0; i < q_.size(); ++i) {
      put_floats(st, "powersgd/q/" + std::to_string(i), q_[i]);
      put_floats(st, "powersgd/error/" + std::to_string(i), error_[i]);
    }
  }
  void load_state(const StateSections& st) override {
    const auto n = static_cast<int64_t>(q_.size());
    draws_ = get_state<int64_t>(st, "powersgd/draws", n);
    for (size_t i = 0; i < q_.size(); ++i) {
      load_floats(st, "powersgd/q/" + std::to_string(i), q_[i]);
      load_floats(st, "powersgd/error/" + std::to_string(i), error_[i]);
    }
  }
  // Another shape: Q (the same on every rank) stays; each rank's error feedback from zero.
  void restart_rank_state() override {
    for (auto& e : error_) e.zero_();
  }

 private:
  // The tensors that travel whole: gathered, summed, averaged, put back.
  void reduce_whole(torch::Tensor flat, const PowerSgdBucket& shape) {
    if (shape.whole_floats == 0) return;
    std::vector<torch::Tensor> parts;
    for (const auto& m : shape.matrices)
      if (!m.compressed()) parts.push_back(flat.narrow(0, m.offset, m.rows * m.cols));
    torch::Tensor whole = torch::cat(parts);
    comm_.allreduce(whole.data_ptr<float>(), static_cast<std::size_t>(whole.numel()), DType::f32,
                    ReduceOp::sum, Group::world);
    whole.div_(world_);
    int64_t at = 0;
    for (auto& part : parts) {
      part.copy_(whole.narrow(0, at, part.numel()));
      at += part.numel();
    }
  }

  void reduce_factors(int index, torch::Tensor flat, const PowerSgdBucket& shape) {
    const auto i = static_cast<size_t>(index);
    std::vector<torch::Tensor> ms, ps, qs;
    int64_t p_at = 0, q_at = 0;
    for (const auto& m : shape.matrices) {
      if (!m.compressed()) continue;
      ms.push_back(flat.narrow(0, m.offset, m.rows * m.cols).view({m.rows, m.cols}));
      ps.push_back(p_[i].narrow(0, p_at, m.rows * m.rank).view({m.rows, m.rank}));
      qs.push_back(q_[i].narrow(0, q_at, m.cols * m.rank).view({m.cols, m.rank}));
      p_at += m.rows * m.rank;
      q_at += m.cols * m.rank;
    }
    const double eps = s_.cfg.orthogonalization_epsilon;
    // Warm start keeps the last step's Q once one was drawn.
    if (!s_.cfg.warm_start || draws_[i] == 0) draw_q(index);
    for (auto& q : qs) orthogonalize(q, eps);
    for (size_t k = 0; k < ms.size(); ++k) torch::mm_out(ps[k], ms[k], qs[k]);
    comm_.allreduce(p_[i].data_ptr<float>(), static_cast<std::size_t>(shape.p_floats), DType::f32,
                    ReduceOp::sum, Group::world);
    for (auto& p : ps) orthogonalize(p, eps);
    for (size_t k = 0; k < ms.size(); ++k) torch::mm_out(qs[k], ms[k].t(), ps[k]);
    comm_.allreduce(q_[i].data_ptr<float>(), static_cast<std::size_t>(shape.q_floats), DType::f32,
                    ReduceOp::sum, Group::world);
    q_[i].div_(world_);
    for (size_t k = 0; k < ms.size(); ++k) torch::mm_out(ms[k], ps[k], qs[k].t());
  }

  // A fresh Q for bucket `index`, the same on every rank: standard normal values from a
  // generator seeded by the run's seed, the bucket and how many Qs it drew before.
  void draw_q(int index) {
    const auto i = static_cast<size_t>(index);
    const uint64_t seed = (static_cast<uint64_t>(static_cast<uint32_t>(s_.cfg.seed)) << 32) ^
                          (static_cast<uint64_t>(index) << 20) ^ static_cast<uint64_t>(draws_[i]++);
    at::Generator gen = at::detail::createCPUGenerator(seed);
    q_[i].copy_(torch::randn({q_[i].numel()}, gen, torch::TensorOptions().dtype(torch::kFloat32)));
  }

  static void put_floats(StateSections& st, const std::string& name, const torch::Tensor& t) {
    const torch::Tensor h = host_tensor(t);
    const float* p = h.data_ptr<float>();
    put_state(st, name, std::vector<float>(p, p + h.numel()));
  }
  static void load_floats(const StateSections& st, const std::string& name, torch::Tensor& t) {
    const auto v = get_state<float>(st, name, t.numel());
    t.copy_(torch::from_blob(const_cast<float*>(v.data()), {t.numel()}, torch::kFloat32));
  }

  TrainSetup& s_;
  Communicator& comm_;
  float world_;
  std::vector<PowerSgdBucket> shapes_;
  std::vector<torch::Tensor> p_, q_, error_;  // per bucket, where the bucket lives
  std::vector<int64_t> draws_;                // per bucket: fresh Qs drawn so far
};

}  // namespace

std::unique_ptr<BucketCodec> make_powersgd_codec(TrainSetup& s, Communicator& comm,
                                                 const std::vector<GradBucket>& buckets) {
  return std::make_unique<PowerSgdCodec>(s, comm, buckets);
}

}  // namespace prunex
