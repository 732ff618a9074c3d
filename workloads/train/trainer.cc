#include "workloads/train/trainer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "engine/strategy.h"
#include "engine/tier_bytes.h"
#include "host/stop_signal.h"
#include "workloads/train/live_strategy.h"
#include "workloads/train/local_steps.h"
#include "workloads/train/train_checkpoint.h"

namespace prunex {
namespace {

// Rank 0 assembles what every rank measured in iteration k.
IterationRecord gather_iteration(Communicator& comm, int k, const LocalIteration& mine,
                                 const std::vector<double>& phase_seconds, double wall,
                                 const TierBytes& bytes, const ModelLayout& layout) {
  const int ranks = comm.size(Group::world);
  IterationRecord it;
  it.iteration = k;
  set_phase_seconds(it, gather_doubles(comm, phase_seconds), ranks);
  const std::vector<double> walls = gather_doubles(comm, {wall});
  it.wall_seconds = critical_path(walls);
  it.bytes = bytes;
  it.dense_inter_bytes = tier_carries(Group::inter, comm.grouping(), mine.dense_inter_bytes);
  it.density = mine.density;
  // The mask that shaped this iteration's compact buffers: simulate --masks and calibrate
  // --steps replay it iteration by iteration.
  if (!mine.payload_density.empty()) it.extra["payload_density"] = mine.payload_density;
  it.mask_frozen = mine.frozen;
  std::vector<double> res;
  for (const auto& r : mine.residuals)
    res.insert(res.end(), {r.r_intra, r.s_intra, r.r_inter, r.s_inter});
  if (!res.empty()) {
    const std::vector<double> all = gather_doubles(comm, res);
    for (size_t l = 0; l < mine.residuals.size(); ++l) {
      auto& per_rank = it.residuals[layout.layers[l].name];
      for (int r = 0; r < ranks; ++r) {
        const double* p = all.data() + r * res.size() + l * 4;
        per_rank.push_back({p[0], p[1], p[2], p[3]});
      }
      it.rho[layout.layers[l].name] = mine.rho[l];
    }
  }
  double loss = mine.loss;
  comm.allreduce(&loss, 1, DType::f64, ReduceOp::avg, Group::world);
  it.loss = loss;
  return it;
}

double learning_rate(const TrainConfig& cfg, int k) {
  if (cfg.lr_schedule != "cosine") return cfg.lr;
  return cfg.lr * 0.5 * (1.0 + std::cos(M_PI * (k - 1) / cfg.iterations));
}

// Where the run ran, beside its settings: the emulated links under `prunex emulate`, the job
// and its allocation under SLURM (the variables srun gives every task).
void record_environment(nlohmann::json& config) {
  if (const char* emu = std::getenv("PRUNEX_EMULATION"))
    config["emulation"] = nlohmann::json::parse(emu, nullptr, false);
  if (const char* job = std::getenv("SLURM_JOB_ID")) {
    nlohmann::json slurm = {{"job_id", job}};
    const std::pair<const char*, const char*> vars[] = {{"job_name", "SLURM_JOB_NAME"},
                                                        {"nodelist", "SLURM_JOB_NODELIST"},
                                                        {"partition", "SLURM_JOB_PARTITION"},
                                                        {"account", "SLURM_JOB_ACCOUNT"},
                                                        {"step_id", "SLURM_STEP_ID"},
                                                        {"array_job_id", "SLURM_ARRAY_JOB_ID"},
                                                        {"array_task_id", "SLURM_ARRAY_TASK_ID"}};
    for (const auto& [key, var] : vars)
      if (const char* v = std::getenv(var)) slurm[key] = v;
    config["slurm"] = slurm;
  }
}

void print_header(const TrainConfig& cfg, const TrainSetup& setup, const Communicator& comm,
                  int ranks) {
  for (const auto& w : cfg.warnings) std::fprintf(stderr, "prunex train: warning: %s\n", w.c_str());
  std::printf(
      "train: %s on %s, %d ranks = %d x %d (nodes x ranks), %lld params, %lld train / %lld test "
      "samples\n",
      std::string(strategy_name(cfg.strategy)).c_str(), cfg.model.c_str(), ranks,
      comm.grouping().nodes(), comm.grouping().gpus_per_node,
      static_cast<long long>(setup.layout.parameters()),
      static_cast<long long>(setup.train_samples_total),
      static_cast<long long>(setup.test_samples_total));
}

// The run so far from a checkpoint: the model, optimizer and strategy state restored, the
// iterations it recorded; the first iteration to run.
int resume_run(const CheckpointManifest& resume, const TrainConfig& cfg, TrainSetup& setup,
               LiveStrategy& strategy, Communicator& comm, RunRecord& run, double& eval_seconds) {
  restore_checkpoint(resume, setup, strategy, comm);
  const bool root = comm.world_rank() == 0;
  // A cosine schedule spans --iterations: another total bends the rest of the run.
  const int recorded = resume.json["config"].value("iterations", cfg.iterations);
  if (root && cfg.lr_schedule == "cosine" && recorded != cfg.iterations)
    std::fprintf(stderr,
                 "prunex train: warning: --lr-schedule cosine over --iterations %d, the "
                 "checkpoint's run over %d: the rates from here differ from its\n",
                 cfg.iterations, recorded);
  for (const auto& j : resume.json["record"]["iterations"])
    run.iterations.push_back(iteration_from_json(j, resume.folder + "/manifest.json"));
  // Iterations up to the checkpoint's ran on its shape (their per-rank lists say so).
  const bool reshaped = !same_shape(resume, comm.grouping());
  const nlohmann::json& saved = resume.json["config"];
  if (reshaped)
    run.summary_extra["resumed_on_another_shape"] = {
        {"iteration", resume.iteration},
        {"world-size", saved.value("world-size", -1)},
        {"gpus-per-node", saved.value("gpus-per-node", -1)}};
  eval_seconds = resume.json.value("evaluation_seconds", 0.0);
  if (root)
    std::printf("train: resumed from %s at iteration %d\n", resume.folder.c_str(),
                resume.iteration);
  if (root && reshaped) {
    std::printf(
        "train: on another shape: %d ranks (%d nodes x %d), the checkpoint's run %d (%d x %d): "
        "every rank starts from rank 0's model, optimiser and strategy state, the state that "
        "was each rank's own restarts, the data continue at the same fraction of the epoch "
        "(docs/training.md)\n",
        comm.size(Group::world), comm.grouping().nodes(), comm.grouping().gpus_per_node,
        saved.value("world-size", -1), saved.value("nodes", -1), saved.value("gpus-per-node", -1));
  }
  return resume.iteration + 1;
}

// One line per iteration: its loss, the test accuracy when it was evaluated (and the
// evaluation's seconds, which are not in the iteration's), the inter-node bytes, its time,
// and the mask: "frozen" when the iteration ran on a frozen mask, "freezes" when it froze it.
void print_iteration(const IterationRecord& it, int iterations, bool mask_was_frozen) {
  char acc[64] = "   -   ";
  if (it.accuracy) {
    const auto eval = it.extra.find("evaluation_seconds");
    std::snprintf(acc, sizeof acc, "%6.2f%% (eval %.1f s)", 100.0 * *it.accuracy,
                  eval != it.extra.end() ? eval->get<double>() : 0.0);
  }
  const char* mask =
      it.mask_frozen ? (mask_was_frozen ? "  (mask frozen)" : "  (mask freezes)") : "";
  std::printf("iter %3d/%d  loss %.4f  acc %s  inter %.3f MB  %.1f s%s\n", it.iteration, iterations,
              *it.loss, acc, it.bytes.inter / 1e6, it.wall_seconds, mask);
  std::fflush(stdout);
}

// Before the first iteration: the local steps' computing alone, at the pace of a step timed
// on this rank (probe_step_seconds); the estimate after the first iteration includes the rest.
void print_start_estimate(double step_seconds, int64_t steps, int iterations) {
  if (iterations <= 0) return;
  std::printf(
      "estimate: about %.0f s of computing for %d iterations of %lld steps at %.3f s a step "
      "(timed here before the start); communication and evaluations come on top\n",
      step_seconds * static_cast<double>(steps) * iterations, iterations,
      static_cast<long long>(steps), step_seconds);
  std::fflush(stdout);
}

// After the first iteration this run times: the rest at its pace (evaluations apart).
void print_estimate(const IterationRecord& it, int iterations) {
  const int rest = iterations - it.iteration;
  if (rest <= 0) return;
  std::printf("estimate: about %.0f s for the other %d iterations at iteration %d's pace\n",
              rest * it.wall_seconds, rest, it.iteration);
  std::fflush(stdout);
}

// One outer iteration k on every rank: the strategy's local steps and consensus, the record
// rank 0 gathers, the test-set evaluation when due (its seconds added to eval_seconds).
IterationRecord train_iteration(int k, const TrainConfig& cfg, const TrainBackend& backend,
                                TrainSetup& setup, LiveStrategy& strategy, PhaseClock& clock,
                                double& eval_seconds, bool& converged) {
  Communicator& comm = *backend.control;
  const double lr = learning_rate(cfg, k);
  for (auto& group : setup.optimizer->param_groups())
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
  // The iteration's calls start here; the other logs are cleared too, so they stay short.
  for (Communicator* c : {backend.control, backend.data}) c->clear_calls();
  const double start = now_seconds();
  LocalIteration local = strategy.iterate(k, clock);
  const double wall = now_seconds() - start;
  const TierBytes bytes = tier_bytes(backend.data->calls(), cfg.strategy, comm.grouping());
  IterationRecord it =
      gather_iteration(comm, k, local, clock.take_iteration(), wall, bytes, setup.layout);
  if (k % cfg.eval_every == 0 || k == cfg.iterations || local.converged) {
    const double t = now_seconds();
    const EvalResult ev = evaluate(strategy.eval_model(), setup, comm);
    const double seconds = now_seconds() - t;
    eval_seconds += seconds;
    it.accuracy = ev.accuracy;
    it.extra["test_loss"] = ev.loss;
    it.extra["evaluation_seconds"] = seconds;
  }
  it.extra["lr"] = lr;
  converged = local.converged;
  return it;
}

// Whether any rank has been asked to stop (host/stop_signal.h): one value all-reduced on the
// control communicator, so every rank leaves the loop after the same iteration.
bool stop_agreed(Communicator& comm) {
  double stop = stop_requested() ? 1 : 0;
  comm.allreduce(&stop, 1, DType::f64, ReduceOp::max, Group::world);
  return stop > 0;
}

}  // namespace

RunRecord run_training(const TrainConfig& cfg, const TrainBackend& backend,
                       const std::function<void(const RunRecord&)>& on_iteration) {
  check_train_config(cfg);
  install_stop_signal();
  Communicator& comm = *backend.control;
  const InjectedFailure failure = parse_inject_failure(cfg.inject_failure);
  PRUNEX_USAGE(failure.rank < comm.size(Group::world), "--inject-failure: no rank ", failure.rank,
               " in a world of ", comm.size(Group::world));
  const bool root = comm.world_rank() == 0;
  RunRecord run;
  run.ranks = comm.size(Group::world);
  run.config = config_to_json(cfg);
  // --resume: the checkpoint is checked before any data is loaded.
  std::optional<CheckpointManifest> resume;
  if (!cfg.resume.empty()) resume = open_resume(cfg, run.config);
  const std::string checkpoint_dir =
      cfg.checkpoint_dir.empty() ? cfg.out + "/checkpoint" : cfg.checkpoint_dir;
  TrainSetup setup = make_setup(cfg, backend);
  const double step_seconds = probe_step_seconds(setup);  // before any gradient hook
  // The strategy's payload travels on backend.data, whose calls are the iteration's bytes.
  auto strategy = make_live_strategy(setup, *backend.data);
  run.config.update(run_facts(setup));  // what the run was, beside its settings
  run.summary_extra["strategy"] = std::string(strategy_name(cfg.strategy));
  record_environment(run.config);
  if (root) {
    print_header(cfg, setup, comm, run.ranks);
    print_start_estimate(step_seconds, steps_per_iteration(setup),
                         cfg.iterations - (resume ? resume->iteration : 0));
  }

  comm.barrier(Group::world);
  PhaseClock clock(now_seconds(), cfg.sync_phases);
  if (setup.device.is_cuda()) clock.set_device_wait([&setup] { device_sync(setup); });
  if (failure.rank == comm.world_rank())
    clock.arm_failure(failure.rank, failure.iteration, failure.phase);
  double eval_seconds = 0;
  const int first =
      resume ? resume_run(*resume, cfg, setup, *strategy, comm, run, eval_seconds) : 1;
  for (int k = first; k <= cfg.iterations; ++k) {
    bool converged = false;
    IterationRecord it =
        train_iteration(k, cfg, backend, setup, *strategy, clock, eval_seconds, converged);
    if (root) {
      print_iteration(it, cfg.iterations,
                      !run.iterations.empty() && run.iterations.back().mask_frozen);
      if (k == first) print_estimate(it, cfg.iterations);
    }
    run.iterations.push_back(std::move(it));
    if (root && on_iteration) on_iteration(run);
    // SIGUSR1 on any rank (SLURM's warning before a time limit or preemption), agreed by all:
    // this iteration's checkpoint, then stop unfinished (run_train exits kExitCheckpointed).
    const bool stop = k < cfg.iterations && !converged && stop_agreed(comm);
    if ((cfg.checkpoint_every > 0 && k % cfg.checkpoint_every == 0) || stop) {
      const double t = now_seconds();
      write_checkpoint(checkpoint_dir, k, run,
                       {{"evaluation_seconds", eval_seconds}, {"converged", converged}}, setup,
                       *strategy, comm);
      if (root)
        std::printf("train: checkpoint of iteration %d in %s (%.2f s)\n", k, checkpoint_dir.c_str(),
                    now_seconds() - t);
    }
    if (stop) {
      if (root)
        std::printf("train: SIGUSR1: stopped after iteration %d of %d; resume with --resume %s\n",
                    k, cfg.iterations, checkpoint_dir.c_str());
      run.completed = false;
      break;
    }
    if (converged) {
      if (root) std::printf("train: stopping test passed at iteration %d\n", k);
      break;
    }
  }
  run.trace = decode_events(gather_ragged(comm, clock.encoded_events()));
  if (const nlohmann::json masks = strategy->masks(); !masks.is_null())
    run.extra_files["masks.json"] = masks;
  run.summary_extra["evaluation_seconds"] = eval_seconds;
  if (!root) run.iterations.clear();
  return run;
}

}  // namespace prunex
