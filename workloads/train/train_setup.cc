#include "workloads/train/train_setup.h"

#include <torch/cuda.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "engine/error.h"
#include "engine/phases.h"
#include "host/heap_reuse.h"
#include "host/host_memory.h"
#include "workloads/layers/model_zoo.h"
#include "workloads/train/train_check.h"

namespace prunex {

FlatLayout::FlatLayout(const ModelLayout& layout) {
  for (const auto& l : layout.layers) {
    offset.push_back(total);
    numel.push_back(l.numel());
    total += l.numel();
  }
}

namespace {

Dataset load_split(const TrainConfig& cfg, const DatasetSpec& spec, bool train) {
  return load_dataset(spec, cfg.data_dir, train, {}, static_cast<uint64_t>(cfg.seed));
}

Dataset first_n(const Dataset& d, long n) {
  if (n <= 0 || n >= d.size()) return d;
  Dataset out;
  out.images = d.images.narrow(0, 0, n);
  out.labels = d.labels.narrow(0, 0, n);
  out.classes = d.classes;
  return out;
}

// Contiguous part r of n (sizes differ by at most one), so the whole test set is used.
Dataset part(const Dataset& d, int r, int n) {
  const int64_t begin = d.size() * r / n, end = d.size() * (r + 1) / n;
  Dataset out;
  out.images = d.images.narrow(0, begin, end - begin);
  out.labels = d.labels.narrow(0, begin, end - begin);
  out.classes = d.classes;
  return out;
}

// Before any data is loaded or model built: what this node's ranks will hold must fit in
// memory (an absurd --classes, model or --synthetic-samples would otherwise die in the
// allocator). Per rank: 12 fp32 copies of the model (the model, its gradients and momentum,
// and H-SADMM's theta, z_i, z, u, v, the previous z_i and z, the sum buffer and the
// evaluation model) and the whole data set as fp32 (each rank loads it, then keeps its
// shard; synthetic sets also their class prototypes); activations come on top. Every rank
// decides on the smallest memory any rank sees, so all stop alike.
void check_fits(const TrainSetup& s, const DatasetSpec& spec, Communicator& comm) {
  constexpr double kCopies = 12;
  const double image = 4.0 * spec.channels * spec.image_size * spec.image_size;
  double samples = static_cast<double>(spec.train_samples + spec.test_samples);
  if (spec.name == "synthetic") samples += 2.0 * spec.classes;
  const double model = static_cast<double>(s.layout.parameters()) * 4 * kCopies;
  const double ranks_here = comm.size(Group::intra);
  double minus_have = -available_memory_bytes();
  comm.allreduce(&minus_have, 1, DType::f64, ReduceOp::max, Group::world);
  char what[256];
  std::snprintf(what, sizeof what,
                "--model %s with %d classes (%.0f parameters, 12 fp32 copies) and %.0f images of "
                "%s on each of %d ranks per node",
                s.cfg.model.c_str(), s.cfg.classes, static_cast<double>(s.layout.parameters()),
                samples, spec.name.c_str(), static_cast<int>(ranks_here));
  check_fits_in_memory((model + samples * image) * ranks_here, what,
                       "a smaller model, --classes or data set, fewer ranks per node, or "
                       "PRUNEX_MAX_MEMORY_GIB",
                       -minus_have);
}

}  // namespace

TrainSetup make_setup(const TrainConfig& cfg, const TrainBackend& backend) {
  PRUNEX_CHECK(backend.control && backend.data, "incomplete TrainBackend");
  Communicator& comm = *backend.control;
  torch::set_num_threads(cfg.threads);
  keep_freed_memory_for_reuse();
  const NodeGrouping& g = comm.grouping();
  const DatasetSpec data = train_data_spec(cfg);
  TrainSetup s(cfg, make_layout(cfg.model, cfg.classes, data.image_size, data.channels));
  check_fits(s, data, comm);
  Dataset train = first_n(load_split(cfg, data, true), cfg.train_samples);
  Dataset test = first_n(load_split(cfg, data, false), cfg.test_samples);
  check_data_classes(cfg, train.classes);
  // The model was built for the data set's images: files of another size (or a test set that
  // disagrees with the training set) stop here, named, before any training.
  for (const auto& [split, d] :
       {std::pair<const char*, const Dataset*>{"training", &train}, {"test", &test}})
    check_data_shape(cfg, data, split, d->channels(), d->image_size(), d->images.size(3));
  s.train_samples_total = train.size();
  s.test_samples_total = test.size();
  s.print_progress = comm.world_rank() == 0;
  s.backend = backend;
  if (backend.cuda_device >= 0)
    s.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(backend.cuda_device));

  ShardSpec spec{g.nodes(), g.gpus_per_node, comm.node(), comm.local_rank()};
  s.train_shard = shard(train, spec);
  s.test = part(test, comm.world_rank(), g.world_size);
  const bool augment = cfg.dataset == "cifar10";
  // On a GPU the training shard lives in device memory unless its batches are augmented on
  // the host: each step gathers its batch there, with no copy from host memory.
  if (s.device.is_cuda() && !augment) {
    s.train_shard.images = s.train_shard.images.to(s.device);
    s.train_shard.labels = s.train_shard.labels.to(s.device);
  }

  // Same seed on every rank: identical initial theta everywhere. The initialisation draws
  // from LibTorch's one global generator: ranks that are threads of one process (the
  // in-process communicator) take turns, each seeding it and drawing its whole model.
  {
    static std::mutex global_generator;
    const std::lock_guard<std::mutex> turn(global_generator);
    torch::manual_seed(cfg.seed);
    s.model = make_model(cfg.model, cfg.classes, static_cast<int>(train.channels()));
  }
  s.model->to(s.device);
  if (s.device.is_cuda() && cfg.deterministic) {
    // cuDNN's backward convolutions add with atomics unless told otherwise; autotuning would
    // pick algorithms by timing.
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
  s.params = parameters_in_layout_order(*s.model, s.layout);

  BatchOptions bo;
  bo.batch_size = cfg.batch;
  bo.shuffle = true;
  bo.augment = augment;
  bo.seed = static_cast<uint64_t>(cfg.seed) * 1000003u + static_cast<uint64_t>(comm.world_rank());
  if (bo.augment) bo.pad_fill = padding_fill(cifar10_normalization());
  s.loader = std::make_unique<BatchLoader>(s.train_shard, bo);

  s.optimizer = std::make_unique<torch::optim::SGD>(
      s.model->parameters(),
      torch::optim::SGDOptions(cfg.lr).momentum(cfg.momentum).weight_decay(cfg.weight_decay));
  return s;
}

nlohmann::json run_facts(const TrainSetup& s) {
  const NodeGrouping& g = s.control().grouping();
  return {{"gpus-per-node", g.gpus_per_node},
          {"world-size", g.world_size},
          {"nodes", g.nodes()},
          {"executor", "mpi"},
          {"device", s.device.is_cuda() ? "cuda" : "cpu"},
          {"input", s.layout.input_size},
          {"input-channels", s.layout.input_channels},
          {"samples", s.train_samples_total}};
}

void sgd_step(TrainSetup& s) {
  if (s.device.is_cuda())
    sgd_step_foreach(*s.optimizer);
  else
    s.optimizer->step();
}

void check_payload_memory(const TrainSetup& s, const Communicator& comm, const char* what) {
  PRUNEX_CHECK((comm.memory_space() == MemorySpace::device) == s.device.is_cuda(), what, " on ",
               s.device.str(), " needs a payload communicator of that memory space");
}

PeerKernels& peer_kernels(const TrainSetup& s) {
  PeerKernels& k = s.backend.peer_kernels ? *s.backend.peer_kernels : host_peer_kernels();
  PRUNEX_CHECK(k.memory().space() == s.backend.data->memory_space(),
               "the peers' kernels and the payload communicator live in different memory");
  return k;
}

void device_sync(const TrainSetup& s) {
  if (s.device.is_cuda()) torch::cuda::synchronize(s.device.index());
}

torch::Tensor host_tensor(const torch::Tensor& t) {
  return t.to(torch::kCPU).contiguous();
}

torch::Tensor flat_view(const TrainSetup& s, const float* p, int64_t n) {
  return torch::from_blob(const_cast<float*>(p), {n},
                          torch::TensorOptions().dtype(torch::kFloat32).device(s.device));
}

void params_to_flat(const std::vector<torch::Tensor>& params, const FlatLayout& fl,
                    torch::Tensor flat) {
  torch::NoGradGuard no_grad;
  for (size_t l = 0; l < params.size(); ++l)
    flat.narrow(0, fl.offset[l], fl.numel[l]).copy_(params[l].reshape({-1}));
}

void flat_to_params(const torch::Tensor& flat, const FlatLayout& fl,
                    const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard no_grad;
  for (size_t l = 0; l < params.size(); ++l)
    params[l].copy_(flat.narrow(0, fl.offset[l], fl.numel[l]).view_as(params[l]));
}

void check_finite(const torch::Tensor& flat, const FlatLayout& fl, const ModelLayout& layout,
                  const char* what, int iteration) {
  if (torch::isfinite(flat).all().item<bool>()) return;
  for (size_t l = 0; l < fl.layers(); ++l)
    if (!torch::isfinite(flat.narrow(0, fl.offset[l], fl.numel[l])).all().item<bool>())
      throw_non_finite(layout, l, what, iteration);
}

void throw_non_finite(const ModelLayout& layout, size_t layer, const char* what, int iteration) {
  throw std::runtime_error(detail::concat("non-finite value in ", what, " of layer ",
                                          layout.layers[layer].name, " at iteration ", iteration,
                                          " (try a smaller --lr)"));
}

}  // namespace prunex
