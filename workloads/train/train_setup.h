// What every live strategy needs on one rank: the model (theta) and its parameters in
// layout order, the rank's training shard and test shard, the optimiser, and evaluation.
// LibTorch code: include only from workloads/train/*.cc.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "engine/communicator.h"
#include "engine/layer_layout.h"
#include "workloads/data/batches.h"
#include "workloads/data/dataset.h"
#include "workloads/torch/models.h"
#include "workloads/train/phase_clock.h"
#include "workloads/train/sgd_step.h"
#include "workloads/train/train_backend.h"
#include "workloads/train/train_config.h"

namespace prunex {

// Offsets of every layout tensor in one flat float buffer (all parameters end to end).
struct FlatLayout {
  std::vector<int64_t> offset, numel;
  int64_t total = 0;
  explicit FlatLayout(const ModelLayout& layout);
  size_t layers() const { return offset.size(); }
};

struct TrainSetup {
  TrainSetup(TrainConfig c, ModelLayout l)
      : cfg(std::move(c)), layout(std::move(l)), flat(layout) {}

  TrainConfig cfg;
  ModelLayout layout;
  FlatLayout flat;
  ModelHandle model = nullptr;
  std::vector<torch::Tensor> params;  // layout order, share storage with model
  Dataset train_shard;                // this rank's shard (i, j)
  std::unique_ptr<BatchLoader> loader;
  Dataset test;  // this rank's part of the test set
  std::unique_ptr<torch::optim::SGD> optimizer;
  int64_t epoch = 0;  // the loader's current epoch (local steps continue across epochs)
  bool epoch_open = false;
  int64_t train_samples_total = 0;  // before sharding
  int64_t test_samples_total = 0;
  // World rank 0: run_local_steps prints a progress line at least every progress_s seconds
  // of a long outer iteration (steps done, mean loss so far).
  bool print_progress = false;
  double progress_s = 10;
  // Where the model, its gradients and the batches live, and what moves what (train_backend.h).
  torch::Device device = torch::kCPU;
  TrainBackend backend;
  Communicator& control() const { return *backend.control; }
};

// Loads data (this rank's shards), builds the model with a seed shared by every rank (so all
// ranks start from the same theta) on the backend's device, and the optimiser.
TrainSetup make_setup(const TrainConfig& cfg, const TrainBackend& backend);
inline TrainSetup make_setup(const TrainConfig& cfg, Communicator& comm) {
  return make_setup(cfg, TrainBackend::host(comm));
}
// Waits for the device's queued work (a no-op on the CPU): before code that reads tensors
// LibTorch wrote, on another stream or through raw pointers.
// What a run records in metrics.json's config beside its settings (settings/config_fields.h's
// recorded keys): the grouping used (with --gpus-per-node 0, the ranks per host found, so
// --config of the record reproduces it), world size, nodes, executor, device, input size and
// training samples: what a rerun, a simulation or a calibration of the run needs.
nlohmann::json run_facts(const TrainSetup& s);

void device_sync(const TrainSetup& s);
// The peers' codec kernels where the payload lives (TrainBackend::peer_kernels, else the host's).
PeerKernels& peer_kernels(const TrainSetup& s);
// One SGD step of s.optimizer: its own step() on the CPU, sgd_step_foreach on a GPU
// (sgd_step.h).
void sgd_step(TrainSetup& s);
// Device-native strategies keep their payload where the parameters are: their payload
// communicator must work in that memory (a failed PRUNEX_CHECK naming `what` otherwise).
void check_payload_memory(const TrainSetup& s, const Communicator& comm, const char* what);
// t on the CPU, contiguous (t itself when it already is).
torch::Tensor host_tensor(const torch::Tensor& t);
// A flat buffer of n floats at p in the setup's device memory, as a tensor (no copy).
torch::Tensor flat_view(const TrainSetup& s, const float* p, int64_t n);

// Copies the model's parameters into flat (theta) / writes flat into a model's parameters;
// flat: a 1-D tensor of fl.total floats on the parameters' device.
void params_to_flat(const std::vector<torch::Tensor>& params, const FlatLayout& fl,
                    torch::Tensor flat);
void flat_to_params(const torch::Tensor& flat, const FlatLayout& fl,
                    const std::vector<torch::Tensor>& params);

// NaN or Inf anywhere in flat (1-D, any device) -> runtime_error naming the layer and the
// iteration.
void check_finite(const torch::Tensor& flat, const FlatLayout& fl, const ModelLayout& layout,
                  const char* what, int iteration);
// The error check_finite throws, for a value found elsewhere (DDP's averaged gradient,
// Top-K's gathered values): every rank holds the same values, so every rank stops alike.
[[noreturn]] void throw_non_finite(const ModelLayout& layout, size_t layer, const char* what,
                                   int iteration);

}  // namespace prunex
