#include "workloads/train/train_check.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "engine/error.h"
#include "workloads/data/cifar10_reader.h"
#include "workloads/data/idx_reader.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {

DatasetSpec train_data_spec(const TrainConfig& cfg) {
  DatasetSpec spec = dataset_spec(cfg.dataset);
  if (cfg.dataset == "synthetic") {
    spec.classes = cfg.classes;
    spec.train_samples = cfg.synthetic_samples;
    spec.image_size = cfg.synthetic_size;
    spec.test_samples = std::max<int64_t>(cfg.synthetic_samples / 4, 64);
  }
  return spec;
}

void check_data_classes(const TrainConfig& cfg, int data_classes) {
  PRUNEX_USAGE(data_classes <= cfg.classes, "dataset has ", data_classes,
               " classes but --classes is ", cfg.classes);
}

void check_data_shape(const TrainConfig& cfg, const DatasetSpec& spec, const char* split,
                      int64_t channels, int64_t height, int64_t width) {
  PRUNEX_USAGE(channels == spec.channels && height == spec.image_size && width == spec.image_size,
               cfg.dataset, " ", split, " images in ",
               cfg.data_dir.empty() ? std::string("the default folder") : cfg.data_dir, " are ",
               channels, "x", height, "x", width, " (channels x height x width); ", cfg.dataset,
               "'s are ", spec.channels, "x", spec.image_size, "x", spec.image_size,
               ", the shape the model is built for");
}

TrainOutputs claim_train_outputs(const TrainConfig& cfg) {
  TrainOutputs o;
  o.out = std::make_unique<OutputDir>(cfg.out);
  // A checkpoint folder of its own is checked too: not found out at the first checkpoint.
  // (The same folder as --out, however spelt, is claimed already.)
  std::error_code ec;
  const bool same_as_out = std::filesystem::equivalent(cfg.checkpoint_dir, cfg.out, ec);
  if (cfg.checkpoint_every > 0 && !cfg.checkpoint_dir.empty() && !(same_as_out && !ec))
    o.checkpoint_dir = std::make_unique<OutputDir>(cfg.checkpoint_dir, "--checkpoint-dir");
  return o;
}

void check_resume_settings(const TrainConfig& cfg, const nlohmann::json& config,
                           const CheckpointManifest& m) {
  const std::string what = "--resume " + cfg.resume;
  const nlohmann::json& saved = m.json["config"];
  // Settings that change what the run computes must match; these may differ.
  // (gpus-per-node: compared as resolved where the ranks are known; 0 means "by host" on the
  // command line. data-dir: where the same dataset lies, e.g. copied to a node's scratch; the
  // dataset is --dataset, compared.)
  static const char* free_keys[] = {"iterations",     "out",     "checkpoint-every",
                                    "checkpoint-dir", "resume",  "inject-failure",
                                    "gpus-per-node",  "data-dir"};
  for (const auto& [key, value] : config.items()) {
    if (std::find(std::begin(free_keys), std::end(free_keys), key) != std::end(free_keys)) continue;
    PRUNEX_USAGE(saved.contains(key) && saved[key] == value, what,
                 ": the checkpoint is of a run with --", key, " ",
                 saved.contains(key) ? saved[key].dump() : std::string("(unset)"),
                 ", this run has --", key, " ", value.dump());
  }
  PRUNEX_USAGE(!m.json.value("converged", false), what,
               ": the run it comes from ended (stopping test passed at iteration ", m.iteration,
               ")");
  PRUNEX_USAGE(m.iteration < cfg.iterations, what, ": the checkpoint is at iteration ", m.iteration,
               ", --iterations ", cfg.iterations, " leaves nothing to run");
  PRUNEX_USAGE(m.json.contains("record") && m.json["record"].contains("iterations") &&
                   m.json["record"]["iterations"].is_array() &&
                   m.json["record"]["iterations"].size() == static_cast<size_t>(m.iteration),
               what, ": the manifest's record does not hold ", m.iteration, " iterations");
}

CheckpointManifest open_init_checkpoint(const TrainConfig& cfg) {
  const std::string& dir = cfg.init;
  PRUNEX_USAGE(std::filesystem::exists(std::filesystem::path(dir) / "LATEST"), "--init ", dir,
               ": no complete checkpoint there (no LATEST; write one with train --strategy ddp "
               "--checkpoint-every K)");
  CheckpointManifest m = read_latest_checkpoint(dir);
  const nlohmann::json& saved = m.json["config"];
  PRUNEX_USAGE(saved.is_object() && saved.value("strategy", "") == "ddp", "--init ", dir,
               ": not a checkpoint of a ddp run (strategy ",
               saved.is_object() ? saved.value("strategy", "?") : "?", ")");
  PRUNEX_USAGE(saved.value("model", "") == cfg.model && saved.value("classes", 0) == cfg.classes,
               "--init ", dir, ": model ", saved.value("model", "?"), " with ",
               saved.value("classes", 0), " classes, this run ", cfg.model, " with ", cfg.classes);
  return m;
}

TrainCheck check_train_settings(const TrainConfig& cfg) {
  check_train_config(cfg);
  TrainCheck c;
  if (!cfg.resume.empty()) {
    c.resume = read_latest_checkpoint(cfg.resume);
    check_resume_settings(cfg, config_to_json(cfg), *c.resume);
  }
  c.data = train_data_spec(cfg);
  const ModelLayout layout =
      make_layout(cfg.model, cfg.classes, c.data.image_size, c.data.channels);
  c.parameters = layout.parameters();
  c.layers = layout.layers.size();
  check_data_classes(cfg, c.data.classes);
  return c;
}

TrainCheck check_train_inputs(const TrainConfig& cfg) {
  TrainCheck c = check_train_settings(cfg);
  // Claimed until the checks end; a folder claiming made goes again when they do.
  const TrainOutputs outputs = claim_train_outputs(cfg);
  // The files, read whole as each rank reads them (a bad label or a truncated file is found
  // here, not by every rank at once).
  auto used = [](int64_t have, long limit) { return limit <= 0 || limit >= have ? have : limit; };
  std::vector<RawImages> split;  // training, test; a synthetic set has no files
  if (cfg.dataset != "synthetic")
    for (const bool train : {true, false})
      split.push_back(cfg.dataset == "cifar10" ? read_cifar10(cfg.data_dir, train)
                                               : read_fashion_mnist(cfg.data_dir, train));
  for (std::size_t i = 0; i < split.size(); ++i)
    check_data_shape(cfg, c.data, i == 0 ? "training" : "test", split[i].channels, split[i].height,
                     split[i].width);
  c.train_samples = used(split.empty() ? c.data.train_samples : split[0].count, cfg.train_samples);
  c.test_samples = used(split.empty() ? c.data.test_samples : split[1].count, cfg.test_samples);
  if (c.resume) {
    try {
      // Every rank of the recorded run reads its own file.
      const nlohmann::json& files = c.resume->json["files"];
      const int ranks =
          c.resume->json["config"].value("world-size", static_cast<int>(files.size()));
      for (int r = 0; r < ranks; ++r) check_rank_file_present(*c.resume, r);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--resume: ") + e.what());  // as restore_checkpoint says it
    }
  }
  if (!cfg.init.empty()) {
    c.init = open_init_checkpoint(cfg);
    check_rank_file_present(*c.init, 0);
  }
  return c;
}

}  // namespace prunex
