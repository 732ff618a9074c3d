// `prunex bench --backend mpi`: times all-reduce, broadcast and all-gather on the world,
// intra-node and inter-node-leader groups of a live MPI job and checks every result, printing
// the nccl-tests table. Run it under mpirun; only rank 0 prints and writes --json.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench_modes.h"
#include "backends/mpi/mpi_communicator.h"
#include "engine/error.h"
#include "records/bench_rows.h"
#include "records/run_record.h"

namespace prunex::cli {
namespace {

struct MpiBenchConfig {
  std::vector<std::string> ops;
  std::vector<Group> groups;
  std::vector<std::size_t> sizes;
  int gpus_per_node = 0;  // 0: the ranks sharing a host form a node
  int iters = 20, warmup = 5;
  bool sync = false;      // barriers before and after every timed call (train --sync-phases)
  double busy_us = 0;     // CPU work on every rank before the first barrier
  std::size_t evict = 0;  // bytes written after the busy spin (the compute's cache footprint)
  bool median = false;    // the median over timed iterations, not the mean (of a rank, or
                          // with --sync of each iteration's slowest rank)
  std::string json;
};

MpiBenchConfig parse_config(const Args& args) {
  MpiBenchConfig c;
  const std::string op = args.get_or("op", "allreduce");
  const std::vector<std::string> all_ops = {"allreduce", "broadcast", "allgather"};
  PRUNEX_USAGE(op == "all" || std::count(all_ops.begin(), all_ops.end(), op), "--op ", op,
               " is not one of allreduce, broadcast, allgather, all (--backend mpi)");
  c.ops = op == "all" ? all_ops : std::vector<std::string>{op};
  const std::string group = args.get_or("group", "all");
  if (group == "all") c.groups = {Group::world, Group::intra, Group::inter};
  for (Group g : {Group::world, Group::intra, Group::inter})
    if (group == group_name(g)) c.groups = {g};
  PRUNEX_USAGE(!c.groups.empty(), "--group ", group, " is not one of world, intra, inter, all");
  c.sizes =
      bench_sizes(args.get_size("b", 8), args.get_size("e", 64 << 20), args.get_double("f", 2));
  if (args.has("gpus-per-node")) {
    const long p = args.get_int("gpus-per-node", 0);
    PRUNEX_USAGE(p >= 1 && p <= 1 << 20, "--gpus-per-node must be positive, got ", p);
    c.gpus_per_node = static_cast<int>(p);
  }
  const long n = args.get_int("n", 20), w = args.get_int("w", 5);
  PRUNEX_USAGE(n >= 1 && n <= 1000000, "-n must be in [1, 1000000], got ", n);
  PRUNEX_USAGE(w >= 0 && w <= 1000000, "-w must be in [0, 1000000], got ", w);
  c.iters = static_cast<int>(n);
  c.warmup = static_cast<int>(w);
  c.json = args.get_or("json", "");
  c.sync = args.flag("sync");
  const std::string stat = args.get_or("stat", "mean");
  PRUNEX_USAGE(stat == "mean" || stat == "median", "--stat must be mean or median, got ", stat);
  c.median = stat == "median";
  c.busy_us = args.get_double("busy-us", 0);
  PRUNEX_USAGE(c.busy_us >= 0 && c.busy_us <= 1e7, "--busy-us must be in [0, 1e7], got ",
               c.busy_us);
  c.evict = args.get_size("evict", std::size_t(16) << 20);
  PRUNEX_USAGE(c.busy_us > 0 || !args.has("evict"), "--evict needs --busy-us");
  PRUNEX_USAGE(c.evict <= std::size_t(1) << 32, "--evict must be at most 4G, got ", c.evict);
  return c;
}

std::string title(const NodeGrouping& ng, const MpiBenchConfig& cfg) {
  return detail::concat(
      "prunex bench --backend mpi: ", ng.world_size, " ranks = ", ng.nodes(), " nodes x ",
      ng.gpus_per_node, " ranks", cfg.gpus_per_node > 0 ? " (emulated nodes)" : " (real hosts)",
      ", float sum, ", cfg.iters, " iterations after ", cfg.warmup, " warm-up",
      cfg.busy_us > 0
          ? detail::concat(", each after ", cfg.busy_us, " us busy + ", cfg.evict, " B written")
          : std::string(),
      cfg.sync ? detail::concat(", between world barriers, time = ", cfg.median ? "median" : "mean",
                                " over iterations of the slowest rank's")
               : detail::concat(", time = max over ranks of the ", cfg.median ? "median" : "mean"));
}

// A stand-in for the compute between training steps: spins the CPU for `us` microseconds,
// then writes `evict` bytes, as a step's activations do, so that the collective meets its
// buffers outside the core's private caches, as it does in training (spinning alone leaves
// them cached; docs/calibration.md has the measurement).
void busy(double us, std::size_t evict) {
  const double end = now_seconds() + us * 1e-6;
  volatile double x = 1;
  while (now_seconds() < end) x = x * 1.0000001 + 1e-9;
  static std::vector<unsigned char> scratch;
  scratch.resize(evict);
  for (std::size_t i = 0; i < scratch.size(); i += 64) scratch[i] += 1;
}

struct Measured {
  double seconds = 0;  // mean or median of the timed iterations (communicator's call records)
  long wrong = 0;
};

// One collective, repeated. Buffers are reset before every iteration (outside the timed call)
// so the last result can be checked against its closed form: with group rank q and a small
// pattern c_k = k % 13 + 1, all-reduce sums (q + 1) c_k to n(n + 1)/2 c_k; broadcast copies
// root 0's c_k over a sentinel; all-gather places q * 16 + c_k at block q.
// Every rank calls this; ranks outside the group (non-leaders for inter) only join the
// fences, as they do in train --sync-phases, and without --sync return at once.
Measured run_case(MpiCommunicator& comm, const std::string& op, Group g, std::size_t count,
                  const MpiBenchConfig& cfg) {
  const bool member = g != Group::inter || comm.is_leader();
  if (!member && !cfg.sync) return {};
  const int n = member ? comm.size(g) : 0, q = member ? comm.rank(g) : 0;
  auto c = [](std::size_t k) { return static_cast<float>(k % 13 + 1); };
  std::vector<float> in(member ? count : 0), buf(op == "allgather" ? count * n : in.size());
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = op == "allreduce" ? (q + 1) * c(k) : op == "broadcast" ? c(k) : q * 16 + c(k);
  // As train --sync-phases fences a phase: every rank waits on a world barrier before the
  // call, and again after it so that no rank's next compute burst takes the CPU from ranks
  // still finishing the call. The fence is the world's for every group, as in train: ranks
  // leave a world barrier at different times, and a phase's time includes that skew, which a
  // leaders-only barrier would hide from the bench.
  Measured m;
  std::vector<double> timed;
  for (int it = 0; it < cfg.warmup + cfg.iters; ++it) {
    if (op == "allreduce" || (op == "broadcast" && q == 0))
      std::copy(in.begin(), in.end(), buf.begin());
    else
      std::fill(buf.begin(), buf.end(), -1.0f);
    if (cfg.busy_us > 0) busy(cfg.busy_us, cfg.evict);
    if (cfg.sync) comm.barrier(Group::world);
    if (member) {
      comm.clear_calls();
      if (op == "allreduce")
        comm.allreduce(buf.data(), count, DType::f32, ReduceOp::sum, g);
      else if (op == "broadcast")
        comm.broadcast(buf.data(), count, DType::f32, 0, g);
      else
        comm.allgather(in.data(), buf.data(), count, DType::f32, g);
    }
    if (it >= cfg.warmup) timed.push_back(member ? comm.calls().back().seconds : 0.0);
    if (cfg.sync) comm.barrier(Group::world);
  }
  // With --sync the iterations line up across ranks: an iteration's time is its slowest
  // rank's (the critical path, as train reports a phase), and the statistic runs over those.
  if (cfg.sync) comm.allreduce(timed.data(), timed.size(), DType::f64, ReduceOp::max, Group::world);
  m.seconds = cfg.median ? median(timed) : mean(timed);
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const std::size_t k = i % count;
    const float want = op == "allreduce"   ? n * (n + 1) / 2 * c(k)
                       : op == "broadcast" ? c(k)
                                           : static_cast<float>(i / count) * 16 + c(k);
    m.wrong += buf[i] != want;
  }
  return m;
}

std::vector<BenchRow> run_all(MpiCommunicator& comm, const MpiBenchConfig& cfg) {
  const NodeGrouping& ng = comm.grouping();
  const bool root = comm.world_rank() == 0;
  if (root) print_bench_header(stdout, title(ng, cfg));
  std::vector<BenchRow> rows;
  for (const std::string& op : cfg.ops) {
    for (Group g : cfg.groups) {
      const int n = ng.group_size(g);
      for (std::size_t bytes : cfg.sizes) {
        // all-gather's size is the gathered total (nccl-tests); count is per rank.
        const std::size_t count = op == "allgather" ? bytes / (4 * n) : bytes / 4;
        if (count == 0) continue;
        // Ranks that skip the case (non-leaders for inter, without --sync) wait here.
        Measured m = run_case(comm, op, g, count, cfg);
        comm.allreduce(&m.seconds, 1, DType::f64, ReduceOp::max, Group::world);
        std::int64_t wrong = m.wrong;
        comm.allreduce(&wrong, 1, DType::i64, ReduceOp::sum, Group::world);
        BenchRow row;
        row.op = parse_collective_op(op);
        row.group = g;
        row.algo = "mpi";
        row.count = count;
        row.bytes = op == "allgather" ? count * 4 * n : count * 4;
        row.time_us = m.seconds * 1e6;
        row.wrong = static_cast<long>(wrong);
        fill_bandwidth(row, n);
        if (root) print_bench_row(stdout, row);
        rows.push_back(row);
      }
    }
  }
  if (root) print_bench_footer(stdout, rows);
  return rows;
}

int run_mpi_bench(const Args& args) {
  MpiEnv env;
  MpiBenchConfig cfg;
  std::unique_ptr<MpiCommunicator> comm;
  try {
    cfg = parse_config(args);
    comm = make_mpi_communicator(cfg.gpus_per_node);
  } catch (const UsageError& e) {
    // Every rank reaches the same verdict: rank 0 reports it once, and all ranks exit 2 after
    // MPI_Finalize. Printing here, before finalising, means the line is out before any rank
    // exits and mpirun starts tearing the job down.
    if (env.world_rank() == 0) std::fprintf(stderr, "prunex bench: error: %s\n", e.what());
    return 2;
  }
  std::vector<BenchRow> rows;
  try {
    rows = run_all(*comm, cfg);
  } catch (const std::exception& e) {
    // A failure on one rank would leave the others blocked in a collective: end them all.
    std::fprintf(stderr, "prunex bench: rank %d failed: %s\n", comm->world_rank(), e.what());
    comm->abort(1);
  }
  long wrong = 0;
  for (const auto& r : rows) wrong += r.wrong;
  if (comm->world_rank() == 0) {
    const NodeGrouping& ng = comm->grouping();
    const nlohmann::json context = {{"backend", "mpi"},
                                    {"nodes", ng.nodes()},
                                    {"gpus_per_node", ng.gpus_per_node},
                                    {"world", ng.world_size},
                                    {"sync", cfg.sync},
                                    {"busy_us", cfg.busy_us},
                                    {"evict_bytes", cfg.busy_us > 0 ? cfg.evict : 0},
                                    {"stat", cfg.median ? "median" : "mean"}};
    if (!cfg.json.empty())
      write_file_atomic(cfg.json, bench_rows_json(rows, context).dump(2) + "\n");
    if (wrong) std::fprintf(stderr, "prunex bench: %ld wrong elements\n", wrong);
  }
  return wrong ? 1 : 0;
}

PRUNEX_REGISTER_BENCH_MODE("backend:mpi", run_mpi_bench);

}  // namespace
}  // namespace prunex::cli
