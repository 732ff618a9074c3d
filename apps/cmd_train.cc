// `prunex train`: the command's options and help. Its work is in the prunex-train executable
// (apps/train/run_train.cc), the only one that links LibTorch: `prunex train` checks the
// options here and then execs prunex-train (apps/train_exec.cc).
#include <set>
#include <string>

#include "apps/cli.h"
#include "apps/field_options.h"
#include "apps/train/train_main.h"
#include "workloads/train/train_config.h"

namespace prunex::cli {

TrainConfig read_train_config(const Args& args, nlohmann::json* recorded) {
  TrainConfig cfg;
  std::set<std::string> given;
  const nlohmann::json file = apply_options(train_fields(), args, cfg, &given);
  if (recorded != nullptr) *recorded = file;
  cfg.warnings = fields::settings_not_applying(given, {cfg.strategy});
  return cfg;
}

namespace {

std::vector<Option> train_options() {
  std::vector<Option> opts = field_options(train_fields(), TrainConfig{});
  opts.push_back({"check", "",
                  "check the settings, model, data files, --out and the checkpoint to start "
                  "from on this host, report, and exit without training (0: the run can start; "
                  "for a batch script, before srun or mpirun)",
                  ""});
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "train", "live training (H-SADMM or a baseline) under mpirun/srun, writes metrics.json",
    "mpirun -np N prunex train [--config FILE] [--gpus-per-node P] [--model M] [--strategy S] ...",
    "Runs Algorithm 1 of the PruneX paper (or a baseline strategy) on real MPI ranks with\n"
    "LibTorch on the CPU (--backend mpi), or on CUDA tensors over NCCL, one GPU per rank\n"
    "(--backend nccl). Ranks are grouped into nodes: real hosts, or --gpus-per-node P\n"
    "consecutive ranks per emulated node; local rank 0 of each node is its leader.\n"
    "Defaults are the paper's hyperparameters; a --config JSON file sets any option (its keys\n"
    "are the option names) and flags override it. Writes OUT/metrics.json and OUT/trace.json.\n"
    "The training runs in prunex-train, beside prunex in the same folder (the one executable\n"
    "that loads LibTorch). --check checks everything but the ranks, GPUs and memory on this\n"
    "host and exits without training. SIGUSR1 (SLURM's warning before a time limit:\n"
    "sbatch --signal=USR1@SECONDS) ends the run after the current outer iteration with a\n"
    "checkpoint and exit status 75; --resume continues it.\n\n"
    "example:\n"
    "  mpirun -np 4 prunex train --gpus-per-node 2 --dataset fashion-mnist --model small_cnn \\\n"
    "      --strategy hsadmm --config workloads/configs/fashion_mnist_small_cnn_hsadmm.json",
    train_options(), train_main, "", false, check_train_args});

}  // namespace
}  // namespace prunex::cli
