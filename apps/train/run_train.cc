// `prunex train`'s work, in the prunex-train executable (the only one that links LibTorch):
// live training under mpirun/srun, one process per GPU or CPU slot. apps/cmd_train.cc holds
// the command's options and help; `prunex train` execs prunex-train (apps/train_exec.cc).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "analysis/run_summary.h"
#include "apps/cli.h"
#include "apps/train/train_main.h"
#include "backends/mpi/mpi_communicator.h"
#include "backends/mpi/mpi_env.h"
#include "engine/error.h"
#include "host/stop_signal.h"
#if defined(PRUNEX_HAVE_NCCL)
#include <cuda_runtime_api.h>
#include <fmt/core.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_consensus_math.h"
#include "backends/cuda/cuda_peer_kernels.h"
#include "backends/nccl/nccl_communicator.h"
#endif
#include "host/peer_watch.h"
#include "records/run_record.h"
#include "workloads/train/train_check.h"
#include "workloads/train/train_config.h"
#include "workloads/train/trainer.h"

namespace prunex::cli {
namespace {

// A metrics.json config given to --config reproduces its run only on the same ranks.
void check_recorded_shape(const nlohmann::json& recorded, const Communicator& comm,
                          const std::string& file) {
  const NodeGrouping& g = comm.grouping();
  if (recorded.contains("world-size"))
    PRUNEX_USAGE(recorded["world-size"] == g.world_size, file, ": recorded on world-size ",
                 recorded["world-size"].dump(), ", this run has ", g.world_size,
                 " ranks (mpirun -np)");
  if (recorded.contains("nodes"))
    PRUNEX_USAGE(recorded["nodes"] == g.nodes(), file, ": recorded on ", recorded["nodes"].dump(),
                 " nodes, this run has ", g.nodes());
}

// train --backend nccl needs, in this order: a CUDA build, a device and a LibTorch with CUDA
// (check_train_config() refuses the settings the device path lacks). Empty when all are there;
// otherwise the first missing one, for a one-line refusal.
std::string nccl_training_unavailable() {
#if !defined(PRUNEX_HAVE_NCCL)
  return "this prunex was built without CUDA and NCCL (--backend nccl needs a CUDA build)";
#else
  if (cuda_device_count() == 0)
    return "no CUDA device: " + cuda_unavailable_reason() +
           " (train --backend nccl needs a GPU per rank)";
#if !defined(PRUNEX_TORCH_CUDA)
  return "this build's LibTorch has no CUDA (configure with -DTorch_DIR= a PyTorch install "
         "that has it; --backend nccl trains on CUDA tensors)";
#else
  return "";
#endif
#endif
}

// The communicators and device of the run: MPI alone, or MPI for control and NCCL for the
// tensors on this rank's GPU (the one NcclCommunicator selected).
struct Backend {
  TrainBackend train;
#if defined(PRUNEX_HAVE_NCCL)
  std::unique_ptr<NcclCommunicator> nccl;
  std::unique_ptr<PeerKernels> peer_kernels;
#endif
};

void attach_nccl([[maybe_unused]] Backend& b, [[maybe_unused]] const NodeGrouping& grouping) {
#if defined(PRUNEX_HAVE_NCCL)
  b.nccl = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, grouping);
  b.train.data = b.nccl.get();
  PRUNEX_CUDA_CHECK(cudaGetDevice(&b.train.cuda_device));
  b.train.consensus_math = [] { return make_cuda_consensus_math(); };
  b.peer_kernels = make_cuda_peer_kernels();
  b.train.peer_kernels = b.peer_kernels.get();
#endif
}

// The watch on the other ranks (host/peer_watch.h): the endpoints go round over MPI, then
// each rank connects to its ring neighbours. A rank that dies is named in one line by its
// predecessor, which then exits 1 (mpirun, or srun with --kill-on-bad-exit, ends the others).
// PRUNEX_PEER_WATCH=0 turns it off; a watch that cannot start is a warning, not an error.
std::unique_ptr<PeerWatch> start_peer_watch(int rank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* env = std::getenv("PRUNEX_PEER_WATCH");
  if (size < 2 || (env && std::string(env) == "0")) return nullptr;
  constexpr int kLen = 320;
  std::unique_ptr<PeerWatch> watch;
  std::string why;
  std::vector<char> mine(kLen, '\0'), all(static_cast<size_t>(kLen) * size, '\0');
  try {
    watch = std::make_unique<PeerWatch>();
    const std::string e = watch->endpoint();
    std::copy_n(e.begin(), std::min<size_t>(e.size(), kLen - 1), mine.begin());
  } catch (const std::exception& e) {
    why = e.what();
  }
  MPI_Allgather(mine.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, MPI_COMM_WORLD);
  int ok = watch ? 1 : 0, all_ok = 0;
  for (int r = 0; r < size; ++r) ok = ok && all[static_cast<size_t>(r) * kLen] != '\0';
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int started = 0, all_started = 0;
  if (all_ok) {
    std::vector<std::string> endpoints;
    for (int r = 0; r < size; ++r) endpoints.emplace_back(&all[static_cast<size_t>(r) * kLen]);
    try {
      watch->start(
          rank, endpoints,
          [rank](int lost, const std::string& host, const std::string& how) {
            fmt::print(stderr, "prunex train: rank {}: rank {} (on {}) is lost: {}; stopping\n",
                       rank, lost, host, how);
            std::fflush(stderr);
            std::_Exit(1);
          },
          20);
      started = 1;
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  // All or none: a rank without a watch would be reported lost by its predecessor.
  MPI_Allreduce(&started, &all_started, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_started) return watch;
  if (watch) watch->stop();
  if (!why.empty())
    fmt::print(stderr,
               "prunex train: warning: rank {} runs without a watch on its neighbours: {}\n", rank,
               why);
  return nullptr;
}

int run_train(const Args& args) {
  MpiEnv env;
  TrainConfig cfg;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Configuration errors are the same on every rank: all return 2, rank 0 says why.
  std::unique_ptr<MpiCommunicator> comm;
  try {
    nlohmann::json recorded;
    cfg = read_train_config(args, &recorded);
    check_train_config(cfg);
    if (cfg.backend == "nccl") {
      const std::string why = nccl_training_unavailable();
      PRUNEX_USAGE(why.empty(), why);
    }
    comm = make_mpi_communicator(cfg.gpus_per_node);
    check_recorded_shape(recorded, *comm, args.get_or("config", ""));
  } catch (const UsageError& e) {
    if (rank == 0) fmt::print(stderr, "prunex train: error: {}\n", e.what());
    return 2;
  }
  // Rank 0 writes the results: it checks and claims --out before any work; every rank
  // learns the verdict.
  TrainOutputs outputs;
  int out_ok = 1;
  if (rank == 0) {
    try {
      outputs = claim_train_outputs(cfg);
    } catch (const UsageError& e) {
      fmt::print(stderr, "prunex train: error: {}\n", e.what());
      out_ok = 0;
    }
  }
  MPI_Bcast(&out_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!out_ok) return 2;
  // Stopped (goodbye to the neighbours) on every way out below, so only a rank that dies
  // is reported: by its destructor on the returns, by hand before an abort.
  std::unique_ptr<PeerWatch> watch = start_peer_watch(rank);
  try {
    // After every outer iteration: the record so far, marked unfinished.
    auto so_far = [&](const RunRecord& r) {
      RunRecord partial = r;
      partial.completed = false;
      write_metrics(partial, cfg.out);
    };
    Backend backend;
    backend.train = TrainBackend::host(*comm);
    if (cfg.backend == "nccl") attach_nccl(backend, comm->grouping());
    RunRecord run = run_training(cfg, backend.train, so_far);
    // Stopped by SIGUSR1 after a checkpoint: the record so far stays marked unfinished, and
    // the status says "checkpointed, not done" (a job script requeues on it).
    if (!run.completed) return kExitCheckpointed;
    if (comm->world_rank() == 0) {
      write_run(run, cfg.out);
      print_run_summary(stdout, run, cfg.out);
    }
  } catch (const UsageError& e) {
    // Data errors are found by every rank alike before any collective: exit 2 cleanly.
    if (rank == 0) fmt::print(stderr, "prunex train: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // A failure on one rank must not leave the others waiting in a collective.
    if (watch) watch->stop();
    fmt::print(stderr, "prunex train: rank {} failed: {}\n", rank, e.what());
    std::fflush(stderr);
    comm->abort(1);
  }
  return 0;
}

}  // namespace

int train_main(const Args& args) {
  if (args.flag("check")) return train_check_main(args);
  const int status = run_train(args);
  // Every file is written and closed and MPI is finalized: the process ends here, without
  // LibTorch's static destructors, which deregister its ~2,000 operators one by one (70 ms
  // of the 0.65 s a process spends loading and unloading LibTorch; every rank pays it).
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace prunex::cli
