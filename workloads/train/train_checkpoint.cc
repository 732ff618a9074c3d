#include "workloads/train/train_checkpoint.h"

#include <utility>

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cstring>

#include "engine/error.h"
#include "workloads/train/phase_clock.h"
#include "workloads/train/train_check.h"

namespace prunex {
namespace {

std::string tensor_bytes(const torch::Tensor& t) {
  const torch::Tensor c = host_tensor(t);
  return std::string(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
}

// Copies a section into t in place (t keeps its storage: the optimiser and the layout
// views share it).
void fill_tensor(torch::Tensor t, const StateSections& s, const std::string& name) {
  const std::string& b = state_bytes(s, name);
  PRUNEX_CHECK(t.is_contiguous(), name);
  const size_t want = static_cast<size_t>(t.numel()) * t.element_size();
  PRUNEX_USAGE(b.size() == want, "checkpoint section '", name, "' holds ", b.size(),
               " bytes, this model's tensor ", want);
  if (!want) return;
  if (t.device().is_cpu()) {
    std::memcpy(t.data_ptr(), b.data(), want);
  } else {
    torch::Tensor h = torch::empty_like(t, torch::TensorOptions().device(torch::kCPU));
    std::memcpy(h.data_ptr(), b.data(), want);
    torch::NoGradGuard no_grad;
    t.copy_(h);
  }
}

void put_generator(StateSections& s, const std::string& name, const at::Generator& g) {
  s[name] = tensor_bytes(g.get_state());
}

void load_generator(at::Generator& g, const StateSections& s, const std::string& name) {
  torch::Tensor state = g.get_state();  // the right size and dtype, overwritten
  fill_tensor(state, s, name);
  g.set_state(state);
}

// The model's parameters and buffers from their sections.
void load_model_sections(TrainSetup& s, const StateSections& in) {
  torch::NoGradGuard no_grad;
  for (const auto& p : s.model->named_parameters(true))
    fill_tensor(p.value(), in, "model/" + p.key());
  for (const auto& b : s.model->named_buffers(true))
    fill_tensor(b.value(), in, "buffer/" + b.key());
}

}  // namespace

StateSections save_rank_state(const TrainSetup& s, const LiveStrategy& strategy) {
  StateSections out;
  torch::NoGradGuard no_grad;
  for (const auto& p : s.model->named_parameters(true))
    out["model/" + p.key()] = tensor_bytes(p.value());
  for (const auto& b : s.model->named_buffers(true))
    out["buffer/" + b.key()] = tensor_bytes(b.value());
  // SGD's momentum buffer per parameter (absent before the first step).
  const auto& state = s.optimizer->state();
  std::vector<uint8_t> has_momentum;
  for (size_t l = 0; l < s.params.size(); ++l) {
    const auto it = state.find(optimizer_state_key(s.params[l]));
    has_momentum.push_back(it != state.end());
    if (it == state.end()) continue;
    const auto& sgd = static_cast<const torch::optim::SGDParamState&>(*it->second);
    out["momentum/" + std::to_string(l)] = tensor_bytes(sgd.momentum_buffer());
  }
  put_state(out, "momentum/present", has_momentum);
  put_state_value<int64_t>(out, "data/epoch", s.epoch);
  put_state_value<uint8_t>(out, "data/epoch_open", s.epoch_open);
  put_state_value<int64_t>(out, "data/position", s.loader->position());
  put_generator(out, "data/augment_generator", s.loader->augment_generator());
  put_generator(out, "torch/default_generator", at::detail::getDefaultCPUGenerator());
  strategy.save_state(out);
  return out;
}

int load_init_model(TrainSetup& s) {
  const CheckpointManifest m = open_init_checkpoint(s.cfg);
  load_model_sections(s, read_rank_checkpoint(m, 0));
  return m.iteration;
}

void load_rank_state(TrainSetup& s, LiveStrategy& strategy, const StateSections& in,
                     int saved_world) {
  load_model_sections(s, in);
  torch::NoGradGuard no_grad;
  const auto present =
      get_state<uint8_t>(in, "momentum/present", static_cast<int64_t>(s.params.size()));
  auto& state = s.optimizer->state();
  for (size_t l = 0; l < s.params.size(); ++l) {
    if (!present[l]) continue;
    auto buf = torch::empty_like(s.params[l]);
    fill_tensor(buf, in, "momentum/" + std::to_string(l));
    auto st = std::make_unique<torch::optim::SGDParamState>();
    st->momentum_buffer(buf);
    state[optimizer_state_key(s.params[l])] = std::move(st);
  }
  s.epoch = get_state_value<int64_t>(in, "data/epoch");
  s.epoch_open = get_state_value<uint8_t>(in, "data/epoch_open") != 0;
  int64_t position = get_state_value<int64_t>(in, "data/position");
  PRUNEX_USAGE(!s.epoch_open || (s.epoch >= 1 && position >= 0),
               "checkpoint: bad data loader position");
  if (saved_world > 0 && s.epoch_open) {
    // The same fraction of the epoch, in whole batches of this rank's shard: rank 0's shard
    // held about 1 / saved_world of the samples.
    const double saved_shard =
        std::max<double>(1, static_cast<double>(s.train_samples_total) / saved_world);
    const int64_t shard = s.train_shard.size(), batch = s.cfg.batch;
    const double fraction = std::min(1.0, static_cast<double>(position) / saved_shard);
    position = std::min(shard, static_cast<int64_t>(fraction * shard / batch) * batch);
  }
  if (s.epoch_open) {
    s.loader->start_epoch(s.epoch - 1);
    s.loader->seek(position);
  }
  if (saved_world == 0) load_generator(s.loader->augment_generator(), in, "data/augment_generator");
  at::Generator def = at::detail::getDefaultCPUGenerator();
  load_generator(def, in, "torch/default_generator");
  strategy.load_state(in);
  if (saved_world > 0) strategy.restart_rank_state();
}

CheckpointManifest open_resume(const TrainConfig& cfg, const nlohmann::json& config) {
  CheckpointManifest m = read_latest_checkpoint(cfg.resume);
  check_resume_settings(cfg, config, m);
  return m;
}

bool same_shape(const CheckpointManifest& m, const NodeGrouping& g) {
  const nlohmann::json& saved = m.json["config"];
  return saved.value("world-size", -1) == g.world_size &&
         saved.value("gpus-per-node", -1) == g.gpus_per_node;
}

void restore_checkpoint(const CheckpointManifest& m, TrainSetup& s, LiveStrategy& strategy,
                        Communicator& comm) {
  const bool same = same_shape(m, comm.grouping());
  const auto file_of = [same](int rank) { return same ? rank : 0; };
  std::string error;
  StateSections mine;
  try {
    mine = read_rank_checkpoint(m, file_of(comm.world_rank()));
  } catch (const UsageError& e) {
    error = e.what();
  }
  // The highest bad rank, agreed by all; rank 0 names its file.
  double bad = error.empty() ? 0 : comm.world_rank() + 1;
  comm.allreduce(&bad, 1, DType::f64, ReduceOp::max, Group::world);
  if (bad > 0) {
    const int r = static_cast<int>(bad) - 1;
    if (r != comm.world_rank()) {
      error = "rank " + std::to_string(file_of(r)) + "'s checkpoint file is bad";
      try {
        read_rank_checkpoint(m, file_of(r));
      } catch (const UsageError& e) {
        error = e.what();
      }
    }
    throw UsageError("--resume: " + error);
  }
  load_rank_state(s, strategy, mine, same ? 0 : m.json["config"].value("world-size", 1));
}

void write_checkpoint(const std::string& dir, int k, const RunRecord& run,
                      const nlohmann::json& extra, const TrainSetup& s,
                      const LiveStrategy& strategy, Communicator& comm) {
  try {
    const CheckpointFileInfo info =
        write_rank_checkpoint(dir, k, comm.world_rank(), save_rank_state(s, strategy));
    const std::vector<double> all =
        gather_doubles(comm, {static_cast<double>(info.bytes), static_cast<double>(info.crc32)});
    if (comm.world_rank() != 0) return;
    std::vector<CheckpointFileInfo> infos;
    for (size_t r = 0; r + 1 < all.size(); r += 2)
      infos.push_back({static_cast<int64_t>(all[r]), static_cast<uint32_t>(all[r + 1])});
    nlohmann::json manifest = extra;
    manifest["config"] = run.config;
    manifest["record"] = metrics_json(run);
    publish_checkpoint(dir, k, manifest, infos);
  } catch (const UsageError& e) {
    throw std::runtime_error(std::string("checkpoint: ") + e.what());
  }
}

}  // namespace prunex
