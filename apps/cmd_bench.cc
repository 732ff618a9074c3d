// `prunex bench`: collective and compaction benchmarks, live or simulated, one table format.
#include <climits>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "apps/bench_options.h"
#include "apps/platform_options.h"
#include "engine/error.h"
#include "records/output_dir.h"

namespace prunex::cli {
namespace {

// Key: "op:compaction[:cuda]" for --op compaction, otherwise "backend:<name>".
const std::map<std::string, std::function<int(const Args&)>>& bench_modes() {
  static const std::map<std::string, std::function<int(const Args&)>> modes = {
    {"backend:mpi", run_mpi_bench},
    {"backend:sim", [](const Args& a) { return run_sim_bench(parse_sim_bench(a)); }},
    {"op:compaction", [](const Args& a) { return run_compaction_bench(parse_model_bench(a)); }},
#if defined(PRUNEX_HAVE_NCCL)
    {"backend:nccl", run_nccl_bench},
    {"op:compaction:cuda",
     [](const Args& a) { return run_compaction_cuda_bench(parse_model_bench(a)); }},
#endif
  };
  return modes;
}

// An option of another mode would be ignored without a word: refused instead.
void check_bench_args(const Args& args) {
  const std::string op = args.get_or("op", "allreduce");
  PRUNEX_USAGE(op == "compaction" || !args.has("device"), "--device applies to --op compaction");
  const std::string backend = args.get_or("backend", "mpi");
  const bool sim = backend == "sim" && op != "compaction";
  std::vector<std::string> sim_only = platform_option_names();
  for (const char* o : {"topology", "nodes", "compare", "protocol", "flops"}) sim_only.push_back(o);
  for (const auto& o : sim_only)
    PRUNEX_USAGE(sim || !args.has(o), "--", o, " applies to --backend sim (collectives)");
  for (const char* o : {"sync", "busy-us", "evict", "stat"})
    PRUNEX_USAGE((backend != "sim" && op != "compaction") || !args.has(o), "--", o,
                 " applies to live collectives (--backend mpi or nccl)");
  for (const char* o : {"model", "classes", "sparsity"})
    PRUNEX_USAGE(op == "compaction" || !args.has(o), "--", o, " applies to --op compaction");
  for (const char* o : {"strategy", "flops"})
    PRUNEX_USAGE(op == "iteration" || !args.has(o), "--", o,
                 " applies to --op iteration (--backend sim)");
  PRUNEX_USAGE(op == "iteration" || op == "compaction" || !args.has("keep"),
               "--keep applies to --op compaction and --op iteration");
}

int run_bench(const Args& args) {
  check_bench_args(args);
  const std::string op = args.get_or("op", "allreduce");
  const std::string device = args.get_or("device", "cpu");
  const std::string backend = args.get_or("backend", "mpi");
  const std::string key = op == "compaction"
                              ? (device == "cuda" ? "op:compaction:cuda" : "op:compaction")
                              : "backend:" + backend;
  auto it = bench_modes().find(key);
  PRUNEX_USAGE(it != bench_modes().end(), "no bench mode for ",
               op == "compaction" ? "--op compaction --device " + device
                                  : "--backend " + args.get_or("backend", "mpi"),
               " in this build (CUDA and NCCL modes need a CUDA build)");
  std::optional<OutputFile> json_out;  // checked before the first measurement
  if (const auto json = args.get("json")) json_out.emplace(*json, "--json");
  return it->second(args);
}

std::vector<Option> bench_options() {
  std::vector<Option> opts = {
      choice_option("backend", "B",
                    "mpi (live ranks), nccl (live ranks, one GPU each) or sim (modeled cluster)",
                    "mpi", {"mpi", "nccl", "sim"}),
      choice_option("device", "D", "--op compaction: cpu, or cuda (the GPU kernels; CUDA builds)",
                    "cpu", {"cpu", "cuda"}),
      choice_option(
          "op", "OP",
          "allreduce, broadcast, allgather, all (those three), compaction, or with "
          "--backend sim also alltoall and iteration",
          "allreduce",
          {"allreduce", "broadcast", "allgather", "all", "compaction", "alltoall", "iteration"}),
      choice_option("group", "G", "world, intra, inter or all", "all",
                    {"world", "intra", "inter", "all"}),
      integer_option("gpus-per-node", "P", "ranks per (emulated) node", "", 1, 1 << 20),
      {"topology", "NAME|FILE", "cluster preset or topology file (sim)", ""},
      integer_option("nodes", "M", "nodes to use (sim)", "", 1, 1 << 20),
      size_option("b", "BYTES", "smallest size (K/M/G suffixes)", "8"),
      size_option("e", "BYTES", "largest size", "64M"),
      real_option("f", "FACTOR", "size multiplier", "2", 1, std::numeric_limits<double>::max()),
      integer_option("n", "ITERS", "timed iterations per size", "20", 1, 1000000),
      integer_option("w", "WARMUP", "warm-up iterations per size", "5", 0, 1000000),
      {"sync", "", "mpi: world barriers before and after every timed call (as train --sync-phases)",
       ""},
      real_option("busy-us", "US",
                  "mpi: CPU work on every rank before each iteration (as training's compute)", "0",
                  0, 1e7),
      size_option("evict", "BYTES",
                  "mpi, with --busy-us: bytes each rank writes after its busy spin, so collectives "
                  "meet cold caches as after a training step (0: spin only; at most 4G)",
                  "16M", 4.0 * (1 << 30)),
      choice_option("stat", "S",
                    "mpi: mean or median over the timed iterations (median: robust to a stall); "
                    "the row is the slowest rank's, or with --sync each iteration's slowest rank",
                    "mean", {"mean", "median"}),
      {"json", "FILE", "also write the rows as JSON", ""},
      choice_option("compare", "MODEL",
                    "sim: also print NCCL's own cost model (nccl-model: v2.25.1 tuning "
                    "constants) for each row, the relative difference and their geometric mean",
                    "", {"nccl-model"}),
      choice_option("protocol", "P",
                    "sim --compare nccl-model: NCCL protocol LL, LL128, Simple, or auto (the "
                    "fastest, as NCCL picks per size)",
                    "auto", {"LL", "LL128", "Simple", "auto"}),
      real_option("flops", "F", "compute per GPU per iteration (sim --op iteration)", "0", 0,
                  std::numeric_limits<double>::max()),
      {"strategy", "S",
       "sim --op iteration: the strategy whose engine plan runs (hsadmm, hsadmm-flat, "
       "hsadmm-rail, ddp, fp16, topk, pactrain, cgx, powersgd) on a synthetic 8-convolution "
       "model of -e "
       "bytes",
       "hsadmm"},
      {"model", "M", "model for --op compaction", "resnet152"},
      integer_option("classes", "C", "classes of the model head", "10", 1, INT_MAX),
      {"sparsity", "KINDS", "filter, channel, shape or a+b (compaction)", "channel"},
      {"keep", "RATE", "keep rate in (0, 1] (compaction, sim --op iteration)", "0.5"},
  };
  // --backend sim: the simulated platform, declared once for every command.
  const auto platform = platform_options();
  opts.insert(opts.begin() + 4, platform.begin(), platform.end());
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "bench", "collective and compaction benchmarks (nccl-tests table), live or simulated",
    "prunex bench [--backend mpi|nccl|sim] [--op allreduce|broadcast|allgather|all|compaction] "
    "[options]",
    "Times collectives over a size sweep and checks every result (#wrong), printing the\n"
    "nccl-tests table: op, group, size, count, type, time, algbw, busbw, #wrong. --backend mpi\n"
    "runs under mpirun on real ranks; --backend nccl the same harness on NCCL, one GPU per rank\n"
    "(device buffers); --backend sim runs the same collectives on a modeled SimGrid cluster.\n"
    "--op compaction times pack + unpack over a model's layer shapes against memcpy, on the CPU\n"
    "or (--device cuda) with the CUDA kernels, plus the GPU projection.\n\n"
    "examples:\n"
    "  mpirun -np 4 prunex bench --backend mpi --gpus-per-node 2 --op allreduce --group inter\n"
    "  prunex bench --backend sim --topology puhti --nodes 16 --gpus-per-node 4 --algo ring\n"
    "  prunex bench --backend sim --topology dgx-a100 --nodes 1 --gpus-per-node 8 \\\n"
    "      --group world --compare nccl-model\n"
    "  prunex bench --op compaction --model resnet152 --sparsity channel --keep 0.5\n\n"
    "--backend sim takes the simulated platform's options as simulate does (--algo,\n"
    "--network-model, --fabric-routing, --ecmp-seed, --nccl-protocols, --call-latency,\n"
    "--achieved-bandwidth, --calibration).",
    bench_options(), run_bench, "", false, check_bench_args});

}  // namespace
}  // namespace prunex::cli
