// `prunex train --check`: the run's settings, model, data, output folders and starting
// checkpoint checked on this host without starting any rank, for a batch script to run
// before srun or mpirun (a typo then costs one line, not an allocation's queue wait).
#include <fmt/core.h>

#include <string>

#include "apps/train/train_main.h"
#include "workloads/data/idx_reader.h"
#include "workloads/train/train_check.h"
#include "workloads/train/train_config.h"

namespace prunex::cli {

void check_train_args(const Args& args) {
  check_train_settings(read_train_config(args));
}

int train_check_main(const Args& args) {
  nlohmann::json recorded;
  const TrainConfig cfg = read_train_config(args, &recorded);
  const TrainCheck c = check_train_inputs(cfg);
  for (const auto& w : cfg.warnings) fmt::print(stderr, "prunex train: warning: {}\n", w);

  std::string where = cfg.data_dir.empty() ? default_fashion_mnist_dir() : cfg.data_dir;
  if (cfg.dataset == "synthetic") where = "generated, seed " + std::to_string(cfg.seed);
  fmt::print("prunex train --check: the run can start\n");
  const std::string sparsity =
      packs_compact_payload(cfg.strategy)
          ? fmt::format(" ({} sparsity, keep {})", cfg.hsadmm.sparsity, cfg.hsadmm.keep)
          : "";
  fmt::print("  strategy  {}{} on --backend {}\n", strategy_name(cfg.strategy), sparsity,
             cfg.backend);
  fmt::print("  model     {}: {} parameters in {} tensors, for {}x{}x{} images and {} classes\n",
             cfg.model, c.parameters, c.layers, c.data.channels, c.data.image_size,
             c.data.image_size, cfg.classes);
  fmt::print("  data      {} ({}): {} training and {} test images\n", cfg.dataset, where,
             c.train_samples, c.test_samples);
  fmt::print("  out       {} (writable, free)\n", cfg.out);
  if (cfg.checkpoint_every > 0)
    fmt::print("  checkpoints every {} iterations into {}\n", cfg.checkpoint_every,
               cfg.checkpoint_dir.empty() ? cfg.out + "/checkpoint" : cfg.checkpoint_dir);
  const auto shape = [](const nlohmann::json& config) {
    return fmt::format("{} ranks, {} per node", config.value("world-size", -1),
                       config.value("gpus-per-node", -1));
  };
  if (c.resume)
    fmt::print(
        "  resume    {} at iteration {} of {}: launch it on {}, as recorded (on another "
        "shape, per-rank state restarts: docs/training.md)\n",
        c.resume->folder, c.resume->iteration, cfg.iterations, shape(c.resume->json["config"]));
  if (c.init) fmt::print("  init      {} (ddp, iteration {})\n", c.init->folder, c.init->iteration);
  if (recorded.contains("world-size"))
    fmt::print("  --config  {}: launch it on {}, as recorded\n", args.get_or("config", ""),
               shape(recorded));
  fmt::print(
      "not checked here: the ranks (world size, nodes), GPUs, memory and the checkpoint files' "
      "checksums, which the launched run checks before its first step\n");
  return 0;
}

}  // namespace prunex::cli
