// Everything `prunex train` can be told: the run's settings every command shares
// (RunSettings) and training's own, with the paper's hyperparameters as defaults
// (section 5.1.5). One field table serves the command-line flags, the JSON config file
// (`--config FILE`, keys = flag names) and the effective config written to metrics.json.
// Precedence: defaults < config file < flags.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/compaction.h"
#include "engine/ddp_buckets.h"
#include "engine/phases.h"
#include "engine/run_settings.h"
#include "engine/strategy.h"
#include "settings/config_fields.h"

namespace prunex {

struct TrainConfig : RunSettings {
  TrainConfig() { model = "small_cnn"; }
  // Not a setting: one-line warnings the command found (a setting the strategy does not use),
  // printed by rank 0 once every check has passed and training starts.
  std::vector<std::string> warnings;
  std::string dataset = "fashion-mnist";  // fashion-mnist, cifar10, synthetic
  std::string data_dir;                   // cifar10 (and fashion-mnist override)
  int gpus_per_node = 0;                  // 0: ranks sharing a host form a node
  double lr = 1e-3;
  std::string lr_schedule = "constant";  // constant, or cosine over the outer iterations
  double momentum = 0.9;
  double weight_decay = 1e-4;
  double rho1 = 1.5e-3, rho2 = 1.5e-4;
  double rho1_cap = 10, rho2_cap = 10;
  bool adaptive_rho = true;
  double lambda = 1e-4;           // the l2 term on z (eq. 3-5)
  int freeze_after = 3;           // freeze once the mask is unchanged this many iterations (0: off)
  bool masked_retraining = true;  // after freezing, theta is masked too (section 4.5)
  double eps_abs = 1e-4, eps_rel = 1e-3;
  // pactrain (engine/pactrain.h), beside RunSettings::pactrain: pruned by magnitude or grasp;
  // the ddp checkpoint folder to prune (empty: from scratch); steps a bucket's mask must stay
  // unchanged before it travels compact.
  std::string prune_method = "magnitude";
  std::string init;
  int stable_steps = 10;  // kPactrainStableSteps
  // cgx (engine/cgx_quantize.h), beside RunSettings::cgx: stochastic rounding, per-layer bits
  // (2-4) chosen every adapt_every steps.
  bool stochastic_rounding = false;
  bool adaptive_bits = false;
  int adapt_every = 100;
  // powersgd (engine/powersgd.h), beside RunSettings::powersgd: PyTorch's PowerSGDState.
  long start_powersgd_iter = kPowerSgdStartIter;
  bool warm_start = true;
  bool use_error_feedback = true;
  double orthogonalization_epsilon = 0;
  int eval_every = 1;
  // Measurement mode: world barriers before and after every communication phase (their waits
  // recorded as sync_wait), so the phases time communication alone (DDP then all-reduces
  // after backward).
  bool sync_phases = false;
  // GPU runs: cuDNN's deterministic algorithms (no atomics in the convolutions' backward), so
  // two runs give the same records; the CPU path is deterministic already.
  bool deterministic = false;
  long train_samples = 0;  // 0: the whole training set; else the first N (quick runs)
  long test_samples = 0;
  long synthetic_samples = 4096;
  int synthetic_size = 32;  // side of the synthetic dataset's square images
  int threads = 1;          // intra-op threads per rank
  int seed = 1;
  // Fault injection for tests: "RANK:ITERATION:PHASE": that rank exits abruptly (no MPI
  // finalize, exit status 1) when it reaches PHASE in outer iteration ITERATION. Empty: off.
  std::string inject_failure;
  // Checkpoints (records/checkpoint.h): every K outer iterations (0: none) into
  // checkpoint_dir (empty: OUT/checkpoint); resume: continue the newest checkpoint in a folder.
  int checkpoint_every = 0;
  std::string checkpoint_dir;
  std::string resume;
  // mpi: CPU tensors over Open MPI; nccl: CUDA tensors over NCCL (a GPU per rank and a
  // LibTorch with CUDA; apps/cmd_train.cc says which of these a machine lacks).
  std::string backend = "mpi";
  std::string out = "out/train";
};

// --inject-failure parsed (rank -1: off). UsageError naming the problem.
struct InjectedFailure {
  int rank = -1;
  int iteration = 0;
  Phase phase = Phase::local_compute;
};
InjectedFailure parse_inject_failure(const std::string& spec);

using TrainField = ConfigField<TrainConfig>;

const std::vector<TrainField>& train_fields();

// Applies a JSON object (keys = field names; a metrics.json `config` included) to cfg;
// unknown keys and bad values are UsageErrors naming the file and key.
void apply_config_json(TrainConfig& cfg, const nlohmann::json& j, const std::string& origin);
nlohmann::json config_to_json(const TrainConfig& cfg);
// Range checks that need several fields (keep in (0, 1], positive sizes, known names).
void check_train_config(const TrainConfig& cfg);

}  // namespace prunex
