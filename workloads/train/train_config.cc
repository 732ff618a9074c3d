#include "workloads/train/train_config.h"

#include <algorithm>
#include <climits>
#include <limits>
#include <thread>

#include "engine/error.h"
#include "engine/strategy.h"
#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "settings/run_fields.h"

namespace prunex {
namespace {

using C = TrainConfig;
using fields::kMaxCount;
constexpr double kLarge = std::numeric_limits<double>::max();  // any finite number

// Text as typed; train records an unset text as "" (simulate's fields::text: null).
TrainField str_field(std::string name, std::string vn, std::string help, std::string C::*m) {
  return {name, vn, help, [m](C& c, const std::string& v) { c.*m = v; },
          [m](const C& c) { return nlohmann::json(c.*m); }};
}
template <typename T>
TrainField whole(std::string name, std::string help, T C::*m, long lo, long hi) {
  return fields::whole<C>(std::move(name), "N", std::move(help), m, lo, hi);
}
// A number in (lo, hi] (open_low) or [lo, hi].
TrainField real(std::string name, std::string help, double C::*m, double lo, double hi,
                bool open_low) {
  return fields::real<C>(std::move(name), "X", std::move(help), m, lo, hi, open_low);
}
TrainField boolean(std::string name, std::string help, bool C::*m) {
  return fields::boolean<C>(std::move(name), std::move(help), m);
}

}  // namespace

const std::vector<TrainField>& train_fields() {
  static const std::vector<TrainField> fields = [] {
    std::vector<TrainField> f = {
        str_field("dataset", "D", "fashion-mnist, cifar10 or synthetic", &C::dataset),
        str_field("data-dir", "DIR", "dataset folder (cifar10: data_batch_*.bin, test_batch.bin)",
                  &C::data_dir),
        whole("gpus-per-node", "ranks per emulated node (0: ranks sharing a host)",
              &C::gpus_per_node, 0, 1 << 20),
        real("lr", "SGD learning rate", &C::lr, 0, kLarge, true),
        str_field("lr-schedule", "S",
                  "constant, or cosine (lr * (1 + cos(pi (k-1) / K)) / 2 in iteration k)",
                  &C::lr_schedule),
        real("momentum", "SGD momentum, below 1", &C::momentum, 0, 1, false),
        real("weight-decay", "SGD weight decay", &C::weight_decay, 0, kLarge, false),
        real("rho1", "intra-node penalty (initial)", &C::rho1, 0, kLarge, true),
        real("rho2", "inter-node penalty (initial)", &C::rho2, 0, kLarge, true),
        real("rho1-cap", "largest rho1 the adaptive rule may reach", &C::rho1_cap, 0, kLarge, true),
        real("rho2-cap", "largest rho2", &C::rho2_cap, 0, kLarge, true),
        boolean("adaptive-rho", "residual-balancing penalties (Boyd 3.4.1)", &C::adaptive_rho),
        real("lambda", "l2 weight on z (eq. 3)", &C::lambda, 0, kLarge, false),
        whole("freeze-after", "freeze once the mask is unchanged this many iterations (0: off)",
              &C::freeze_after, 0, kMaxCount),
        boolean("masked-retraining",
                "once the mask is frozen, apply it to theta after every local step",
                &C::masked_retraining),
        real("eps-abs", "absolute tolerance of the stopping test", &C::eps_abs, 0, kLarge, false),
        real("eps-rel", "relative tolerance of the stopping test", &C::eps_rel, 0, kLarge, false),
        str_field("prune-method", "M",
                  "pactrain: magnitude (smallest |w| go) or grasp (scores -w * Hg on 4 batches)",
                  &C::prune_method),
        str_field("init", "DIR",
                  "pactrain: prune the model of the newest checkpoint in DIR (a train --strategy "
                  "ddp run; default: prune the freshly initialised model)",
                  &C::init),
        whole("stable-steps",
              "pactrain: steps a bucket's mask must stay unchanged before its kept values "
              "travel compact (the paper gives no value)",
              &C::stable_steps, 1, kMaxCount),
        boolean("stochastic-rounding", "cgx: round levels stochastically instead of to nearest",
                &C::stochastic_rounding),
        boolean("adaptive-bits",
                "cgx: per-layer bits 2-4 by k-means over (size, top-100 norm of a decayed "
                "gradient accumulator), rank 0 every --adapt-every steps",
                &C::adaptive_bits),
        whole("adapt-every", "cgx: steps between adaptive bit choices", &C::adapt_every, 1,
              kMaxCount),
        whole("start-powersgd-iter",
              "powersgd: local steps all-reduced whole before the compression starts "
              "(PyTorch's start_powerSGD_iter)",
              &C::start_powersgd_iter, 0, kMaxCount),
        boolean("warm-start",
                "powersgd: each step starts from the last step's Q (PyTorch's warm_start; "
                "false: a fresh random Q every step)",
                &C::warm_start),
        boolean("use-error-feedback",
                "powersgd: what the compression lost is added to the next step's gradient "
                "(PyTorch's use_error_feedback)",
                &C::use_error_feedback),
        real("orthogonalization-epsilon",
             "powersgd: added to each column's norm when P and Q are orthogonalized (PyTorch's "
             "orthogonalization_epsilon; 0 fails on a column of zeros)",
             &C::orthogonalization_epsilon, 0, 1, false),
        whole("eval-every", "evaluate z on the test set every N iterations", &C::eval_every, 1,
              kMaxCount),
        boolean(
            "sync-phases",
            "measurement mode: world barriers before and after each communication phase, "
            "their waits recorded as sync_wait, so phases time communication alone (DDP: buckets "
            "all-reduced after backward, no overlap)",
            &C::sync_phases),
        boolean("deterministic",
                "GPU: cuDNN's deterministic algorithms, so two runs give the same records "
                "(slower; the CPU path is always deterministic)",
                &C::deterministic),
        whole("train-samples", "use only the first N training samples (0: all)", &C::train_samples,
              0, kMaxCount),
        whole("test-samples", "use only the first N test samples (0: all)", &C::test_samples, 0,
              kMaxCount),
        whole("synthetic-samples", "training samples of the synthetic dataset",
              &C::synthetic_samples, 1, kMaxCount),
        whole("synthetic-size", "side of the synthetic dataset's square images (224: ImageNet's)",
              &C::synthetic_size, 4, 512),
        whole("threads", "intra-op threads per rank (at most 4 per core)", &C::threads, 1, 1 << 20),
        whole("seed", "random seed", &C::seed, INT_MIN, INT_MAX),
        str_field("inject-failure", "RANK:ITERATION:PHASE",
                  "tests: that rank exits abruptly (status 1, no MPI finalize) on reaching PHASE "
                  "in outer iteration ITERATION; the job must end within seconds",
                  &C::inject_failure),
        whole("checkpoint-every",
              "write a checkpoint every N outer iterations (0: never); the previous one is "
              "kept until the new one is complete",
              &C::checkpoint_every, 0, kMaxCount),
        str_field("checkpoint-dir", "DIR", "checkpoint folder (default: OUT/checkpoint)",
                  &C::checkpoint_dir),
        str_field("resume", "DIR",
                  "continue the newest checkpoint in DIR (same model, strategy and settings) "
                  "up to --iterations in all; on another world size or grouping, each rank's "
                  "own state restarts (docs/training.md)",
                  &C::resume),
        str_field("backend", "B",
                  "mpi (CPU tensors over Open MPI) or nccl (CUDA tensors over NCCL: a GPU per rank "
                  "and a LibTorch with CUDA)",
                  &C::backend),
        str_field("out", "DIR", "output folder (metrics.json, trace.json)", &C::out),
    };
    // The settings simulate shares, declared once (settings/run_fields.h), after the data.
    const auto shared = fields::shared_run_fields<C>();
    f.insert(f.begin() + 2, shared.begin(), shared.end());
    return f;
  }();
  return fields;
}

void apply_config_json(TrainConfig& cfg, const nlohmann::json& j, const std::string& origin) {
  prunex::apply_config_json(train_fields(), cfg, j, origin);
}

nlohmann::json config_to_json(const TrainConfig& cfg) {
  return config_json(train_fields(), cfg);
}

InjectedFailure parse_inject_failure(const std::string& spec) {
  InjectedFailure f;
  if (spec.empty()) return f;
  const auto a = spec.find(':'), b = a == std::string::npos ? a : spec.find(':', a + 1);
  PRUNEX_USAGE(b != std::string::npos, "--inject-failure must be RANK:ITERATION:PHASE, got '", spec,
               "'");
  f.rank = parse_int(spec.substr(0, a), "--inject-failure rank", 0);
  f.iteration = parse_int(spec.substr(a + 1, b - a - 1), "--inject-failure iteration", 1);
  f.phase = parse_phase(spec.substr(b + 1));
  return f;
}

// Checks beyond each field's own bounds (settings/run_fields.h and the table above): across
// fields, names, and what training needs that simulating does not.
void check_train_config(const TrainConfig& c) {
  // Every field's own check (the flags and --config were checked as they were read; a config
  // built in code is checked here, through the same declarations).
  TrainConfig copy = c;
  for (const auto& f : train_fields())
    if (const nlohmann::json v = f.get(c); !v.is_null())
      f.set(copy, config_value_text(v, "the config", f.name));
  parse_inject_failure(c.inject_failure);
  PRUNEX_USAGE(c.dataset == "fashion-mnist" || c.dataset == "cifar10" || c.dataset == "synthetic",
               "unknown dataset '", c.dataset, "' (expected fashion-mnist, cifar10 or synthetic)");
  PRUNEX_USAGE(c.dataset != "cifar10" || !c.data_dir.empty(),
               "--data-dir is required for cifar10 (data_batch_1..5.bin, test_batch.bin)");
  PRUNEX_USAGE(c.classes >= 2, "--classes must be at least 2, got ", c.classes);
  PRUNEX_USAGE(c.lr_schedule == "constant" || c.lr_schedule == "cosine",
               "--lr-schedule must be constant or cosine, got '", c.lr_schedule, "'");
  PRUNEX_USAGE(c.momentum >= 0 && c.momentum < 1, "--momentum must be in [0, 1), got ", c.momentum);
  PRUNEX_USAGE(c.rho1_cap >= c.rho1 && c.rho2_cap >= c.rho2, "rho caps must be >= the initial rho");
  PRUNEX_USAGE(c.hsadmm.wire_dtype == DType::f32 || packs_compact_payload(c.strategy),
               "--wire-dtype ", wire_dtype_name(c.hsadmm.wire_dtype),
               " applies to hsadmm and hsadmm-rail only");
  PRUNEX_USAGE(!c.hsadmm.pipeline_buckets || packs_compact_payload(c.strategy),
               "--pipeline-buckets applies to hsadmm and hsadmm-rail only");
  PRUNEX_USAGE(c.prune_method == "magnitude" || c.prune_method == "grasp",
               "--prune-method must be magnitude or grasp, got '", c.prune_method, "'");
  PRUNEX_USAGE(c.init.empty() || c.strategy == Strategy::pactrain,
               "--init applies to pactrain only");
  PRUNEX_USAGE(!c.pactrain.ternary || c.strategy == Strategy::pactrain,
               "--ternary applies to pactrain only");
  PRUNEX_USAGE(!c.adaptive_bits || c.strategy == Strategy::cgx,
               "--adaptive-bits applies to cgx only");
  // More intra-op threads than 4 per core only thrash; an absurd count would try to start them.
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  PRUNEX_USAGE(c.threads <= 4 * cores, "--threads ", c.threads, " is more than 4 per core (", cores,
               " cores here)");
  // Every outer iteration keeps a record (per-rank phases, residuals per layer) in memory.
  PRUNEX_USAGE(c.iterations <= 100000, "--iterations must be at most 100000, got ", c.iterations);
  PRUNEX_USAGE(!c.out.empty(), "--out must not be empty");
  PRUNEX_USAGE(c.backend == "mpi" || c.backend == "nccl", "--backend must be mpi or nccl, got '",
               c.backend, "'");
  PRUNEX_USAGE(c.backend != "nccl" || c.hsadmm.wire_dtype == DType::f32, "--wire-dtype ",
               wire_dtype_name(c.hsadmm.wire_dtype),
               " is not on --backend nccl in this version (f32 only); use --backend mpi");
  PRUNEX_USAGE(c.checkpoint_dir.empty() || c.checkpoint_every > 0,
               "--checkpoint-dir applies with --checkpoint-every K (> 0): this run writes no "
               "checkpoints");
}

}  // namespace prunex
