#include "workloads/train/train_config.h"

#include <algorithm>
#include <thread>

#include "engine/error.h"
#include "engine/strategy.h"
#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "settings/run_fields.h"

namespace prunex {
namespace {

template <typename T>
TrainField str_field(std::string name, std::string vn, std::string help, T TrainConfig::*m) {
  return {name, vn, help, [m](TrainConfig& c, const std::string& v) { c.*m = v; },
          [m](const TrainConfig& c) { return nlohmann::json(c.*m); }};
}
TrainField dbl_field(std::string name, std::string help, double TrainConfig::*m) {
  return {name, "X", help,
          [m, name](TrainConfig& c, const std::string& v) { c.*m = parse_double(v, "--" + name); },
          [m](const TrainConfig& c) { return nlohmann::json(c.*m); }};
}
TrainField int_field(std::string name, std::string help, int TrainConfig::*m) {
  return {name, "N", help,
          [m, name](TrainConfig& c, const std::string& v) { c.*m = parse_int(v, "--" + name); },
          [m](const TrainConfig& c) { return nlohmann::json(c.*m); }};
}
TrainField long_field(std::string name, std::string help, long TrainConfig::*m) {
  return {name, "N", help,
          [m, name](TrainConfig& c, const std::string& v) { c.*m = parse_long(v, "--" + name); },
          [m](const TrainConfig& c) { return nlohmann::json(c.*m); }};
}
TrainField bool_field(std::string name, std::string help, bool TrainConfig::*m) {
  return {name, "BOOL", help,
          [m, name](TrainConfig& c, const std::string& v) { c.*m = fields::parse_bool(name, v); },
          [m](const TrainConfig& c) { return nlohmann::json(c.*m); }};
}

}  // namespace

const std::vector<TrainField>& train_fields() {
  using C = TrainConfig;
  static const std::vector<TrainField> fields = [] {
    std::vector<TrainField> f = {
        str_field("dataset", "D", "fashion-mnist, cifar10 or synthetic", &C::dataset),
        str_field("data-dir", "DIR", "dataset folder (cifar10: data_batch_*.bin, test_batch.bin)",
                  &C::data_dir),
        int_field("gpus-per-node", "ranks per emulated node (0: ranks sharing a host)",
                  &C::gpus_per_node),
        dbl_field("lr", "SGD learning rate", &C::lr),
        str_field("lr-schedule", "S",
                  "constant, or cosine (lr * (1 + cos(pi (k-1) / K)) / 2 in iteration k)",
                  &C::lr_schedule),
        dbl_field("momentum", "SGD momentum", &C::momentum),
        dbl_field("weight-decay", "SGD weight decay", &C::weight_decay),
        dbl_field("rho1", "intra-node penalty (initial)", &C::rho1),
        dbl_field("rho2", "inter-node penalty (initial)", &C::rho2),
        dbl_field("rho1-cap", "largest rho1 the adaptive rule may reach", &C::rho1_cap),
        dbl_field("rho2-cap", "largest rho2", &C::rho2_cap),
        bool_field("adaptive-rho", "residual-balancing penalties (Boyd 3.4.1)", &C::adaptive_rho),
        dbl_field("lambda", "l2 weight on z (eq. 3)", &C::lambda),
        int_field("freeze-after", "freeze once the mask is unchanged this many iterations (0: off)",
                  &C::freeze_after),
        bool_field("masked-retraining",
                   "once the mask is frozen, apply it to theta after every local step",
                   &C::masked_retraining),
        dbl_field("eps-abs", "absolute tolerance of the stopping test", &C::eps_abs),
        dbl_field("eps-rel", "relative tolerance of the stopping test", &C::eps_rel),
        str_field("prune-method", "M",
                  "pactrain: magnitude (smallest |w| go) or grasp (scores -w * Hg on 4 batches)",
                  &C::prune_method),
        str_field("init", "DIR",
                  "pactrain: prune the model of the newest checkpoint in DIR (a train --strategy "
                  "ddp run; default: prune the freshly initialised model)",
                  &C::init),
        int_field("stable-steps",
                  "pactrain: steps a bucket's mask must stay unchanged before its kept values "
                  "travel compact (the paper gives no value)",
                  &C::stable_steps),
        bool_field("stochastic-rounding", "cgx: round levels stochastically instead of to nearest",
                   &C::stochastic_rounding),
        bool_field("adaptive-bits",
                   "cgx: per-layer bits 2-4 by k-means over (size, top-100 norm of a decayed "
                   "gradient accumulator), rank 0 every --adapt-every steps",
                   &C::adaptive_bits),
        int_field("adapt-every", "cgx: steps between adaptive bit choices", &C::adapt_every),
        int_field("eval-every", "evaluate z on the test set every N iterations", &C::eval_every),
        bool_field(
            "sync-phases",
            "measurement mode: world barriers before and after each communication phase, "
            "their waits recorded as sync_wait, so phases time communication alone (DDP: buckets "
            "all-reduced after backward, no overlap)",
            &C::sync_phases),
        bool_field("deterministic",
                   "GPU: cuDNN's deterministic algorithms, so two runs give the same records "
                   "(slower; the CPU path is always deterministic)",
                   &C::deterministic),
        long_field("train-samples", "use only the first N training samples (0: all)",
                   &C::train_samples),
        long_field("test-samples", "use only the first N test samples (0: all)", &C::test_samples),
        long_field("synthetic-samples", "training samples of the synthetic dataset",
                   &C::synthetic_samples),
        int_field("synthetic-size",
                  "side of the synthetic dataset's square images, 4-512 (224: ImageNet's)",
                  &C::synthetic_size),
        int_field("threads", "intra-op threads per rank", &C::threads),
        int_field("seed", "random seed", &C::seed),
        str_field("inject-failure", "RANK:ITERATION:PHASE",
                  "tests: that rank exits abruptly (status 1, no MPI finalize) on reaching PHASE "
                  "in outer iteration ITERATION; the job must end within seconds",
                  &C::inject_failure),
        int_field("checkpoint-every",
                  "write a checkpoint every N outer iterations (0: never); the previous one is "
                  "kept until the new one is complete",
                  &C::checkpoint_every),
        str_field("checkpoint-dir", "DIR", "checkpoint folder (default: OUT/checkpoint)",
                  &C::checkpoint_dir),
        str_field("resume", "DIR",
                  "continue the newest checkpoint in DIR (same model, strategy, world size, "
                  "grouping and settings) up to --iterations in all",
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

// Checks beyond each field's own (settings/run_fields.h and the table above): across fields,
// and what training needs that simulating does not.
void validate(const TrainConfig& c) {
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
  PRUNEX_USAGE(c.lr > 0, "--lr must be positive, got ", c.lr);
  PRUNEX_USAGE(c.lr_schedule == "constant" || c.lr_schedule == "cosine",
               "--lr-schedule must be constant or cosine, got '", c.lr_schedule, "'");
  PRUNEX_USAGE(c.momentum >= 0 && c.momentum < 1, "--momentum must be in [0, 1), got ", c.momentum);
  PRUNEX_USAGE(c.weight_decay >= 0, "--weight-decay must be >= 0");
  PRUNEX_USAGE(c.rho1 > 0 && c.rho2 > 0, "--rho1 and --rho2 must be positive");
  PRUNEX_USAGE(c.rho1_cap >= c.rho1 && c.rho2_cap >= c.rho2, "rho caps must be >= the initial rho");
  PRUNEX_USAGE(c.lambda >= 0, "--lambda must be >= 0");
  PRUNEX_USAGE(c.gpus_per_node >= 0, "--gpus-per-node must be >= 0");
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
  PRUNEX_USAGE(c.stable_steps >= 1, "--stable-steps must be at least 1, got ", c.stable_steps);
  PRUNEX_USAGE(c.adapt_every >= 1, "--adapt-every must be at least 1, got ", c.adapt_every);
  PRUNEX_USAGE(!c.adaptive_bits || c.strategy == Strategy::cgx,
               "--adaptive-bits applies to cgx only");
  PRUNEX_USAGE(c.eval_every >= 1, "--eval-every must be at least 1");
  PRUNEX_USAGE(c.train_samples >= 0 && c.test_samples >= 0, "sample limits must be >= 0");
  PRUNEX_USAGE(c.synthetic_samples >= 1, "--synthetic-samples must be positive");
  PRUNEX_USAGE(c.synthetic_size >= 4 && c.synthetic_size <= 512,
               "--synthetic-size must be 4 to 512 pixels, got ", c.synthetic_size);
  PRUNEX_USAGE(c.threads >= 1, "--threads must be at least 1");
  // More intra-op threads than 4 per core only thrash; an absurd count would try to start them.
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  PRUNEX_USAGE(c.threads <= 4 * cores, "--threads ", c.threads, " is more than 4 per core (", cores,
               " cores here)");
  // Every outer iteration keeps a record (per-rank phases, residuals per layer) in memory.
  PRUNEX_USAGE(c.iterations <= 100000, "--iterations must be at most 100000, got ", c.iterations);
  PRUNEX_USAGE(c.freeze_after >= 0, "--freeze-after must be >= 0");
  PRUNEX_USAGE(!c.out.empty(), "--out must not be empty");
  PRUNEX_USAGE(c.backend == "mpi" || c.backend == "nccl", "--backend must be mpi or nccl, got '",
               c.backend, "'");
  PRUNEX_USAGE(c.backend != "nccl" || c.hsadmm.wire_dtype == DType::f32, "--wire-dtype ",
               wire_dtype_name(c.hsadmm.wire_dtype),
               " is not on --backend nccl in this version (f32 only); use --backend mpi");
  PRUNEX_USAGE(c.checkpoint_every >= 0, "--checkpoint-every must be >= 0, got ",
               c.checkpoint_every);
}

}  // namespace prunex
