// DDP's gradient buckets and what travels in them, split as PyTorch's c10d splits them: one
// reducer (ddp_strategy.cc: buckets in PyTorch's assignment, engine/ddp_buckets.h; readiness
// during backward; launch; wait; the averaged gradients back into the parameters) and one
// codec per strategy with the small interface of a DDP communication hook: how a bucket's
// fp32 gradients go over the wire and come back.
//   ddp       ddp_strategy.cc      the bucket in fp32, summed
//   fp16      fp16_codec.cc        PyTorch's fp16_compress_hook: averaged, cast, summed in fp16
//   pactrain  pactrain_codec.cc    masked gradients; compact once stable; TernGrad levels
//   cgx       cgx_codec.cc         quantized, reduced by CGX's chain of hops after backward
//   powersgd  powersgd_codec.cc    PyTorch's powerSGD_hook: low-rank P and Q, after backward
// Every codec is device-native: it works on the bucket where the payload communicator's
// memory is (the GPU under --backend nccl, host memory on MPI), with LibTorch ops and the
// peers' kernels (engine/peer_kernels.h), and keeps what it sends there too.
// The plan side mirrors them: engine/plan_<strategy>.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/communicator.h"
#include "engine/state_sections.h"

namespace prunex {

struct GradBucket {
  int index = 0;                 // in bucket order
  std::vector<int> layers;       // layout indices, in the bucket's order
  std::vector<int64_t> offsets;  // each layer's first float in data
  int64_t floats = 0;
  // The bucket's floats: the gradients, after land() the reduced ones, in the payload
  // communicator's memory space (device memory on NCCL, host memory on MPI), owned by the
  // reducer.
  float* payload = nullptr;
};

class BucketCodec {
 public:
  virtual ~BucketCodec() = default;
  // Starts bucket b's reduction at local step `step`: the pending Work when async, nullptr
  // once it completed (blocking).
  virtual std::unique_ptr<Work> launch(GradBucket& b, int64_t step, bool async) = 0;
  // After the reduction completed: b.payload holds the world's sum, or its average when
  // averages() (the reducer divides by the world size otherwise).
  virtual void land(GradBucket& /*b*/) {}
  // Whether land() decodes (a pass over the bucket): the reducer then times it as the compress
  // phase after the reductions, where the plan has the codec's memory passes.
  virtual bool decodes() const { return false; }
  virtual bool averages() const { return false; }
  // Whether a bucket's reduction starts during backward as soon as it is ready (false: all
  // after backward, in bucket order).
  virtual bool overlaps_backward() const { return true; }
  // Inside the step's local compute, after the averaged gradients reached the parameters.
  virtual void after_gradients() {}
  // After the optimiser step; `step` counts the local steps so far.
  virtual void after_step(int64_t /*step*/) {}
  // What the codec reports about an outer iteration: pruned layer -> kept fraction (pactrain).
  virtual void report(std::map<std::string, double>& /*density*/) const {}
  // Its state in checkpoints, as named sections.
  virtual void save_state(StateSections& /*st*/) const {}
  virtual void load_state(const StateSections& /*st*/) {}
  // After a resume on another shape: the rank's own state (error feedback) from zero.
  virtual void restart_rank_state() {}
};

struct TrainSetup;

// Built once the reducer has made its buckets; `buckets` outlives the codec.
std::unique_ptr<BucketCodec> make_dense_codec(Communicator& comm);
std::unique_ptr<BucketCodec> make_fp16_codec(TrainSetup& s, Communicator& comm,
                                             const std::vector<GradBucket>& buckets);
std::unique_ptr<BucketCodec> make_pactrain_codec(TrainSetup& s, Communicator& comm,
                                                 const std::vector<GradBucket>& buckets);
std::unique_ptr<BucketCodec> make_cgx_codec(TrainSetup& s, Communicator& comm,
                                            const std::vector<GradBucket>& buckets);
std::unique_ptr<BucketCodec> make_powersgd_codec(TrainSetup& s, Communicator& comm,
                                                 const std::vector<GradBucket>& buckets);

}  // namespace prunex
