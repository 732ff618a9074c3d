#include "bench/collective_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "engine/error.h"
#include "records/run_record.h"

namespace prunex {
namespace {

// c_k = k % 13 + 1: small integers, exact in float sums of up to a million ranks.
float c(std::size_t k) {
  return static_cast<float>(k % 13 + 1);
}

// One row of the per-op table (nccl-tests' testColl): elements per rank for a row of `bytes`
// on n ranks, this rank's input (group rank q), what the result buffer starts as, the call,
// and the closed form of the result's element i.
struct CollectiveBenchOp {
  CollectiveOp op;
  std::size_t (*count)(std::size_t bytes, int n);
  std::size_t (*out_count)(std::size_t count, int n);
  float (*input)(int q, std::size_t k);
  // The result buffer before the call: the input (in place), or a sentinel (-1).
  bool (*starts_as_input)(int q);
  void (*run)(Communicator& comm, const void* in, void* out, std::size_t count, Group g);
  float (*expect)(std::size_t i, std::size_t count, int n);
};

const CollectiveBenchOp kOps[] = {
    {CollectiveOp::allreduce, [](std::size_t b, int) { return b / 4; },
     [](std::size_t n, int) { return n; }, [](int q, std::size_t k) { return (q + 1) * c(k); },
     [](int) { return true; },
     [](Communicator& m, const void*, void* out, std::size_t n, Group g) {
       m.allreduce(out, n, DType::f32, ReduceOp::sum, g);
     },
     [](std::size_t i, std::size_t, int n) { return n * (n + 1) / 2 * c(i); }},
    {CollectiveOp::broadcast, [](std::size_t b, int) { return b / 4; },
     [](std::size_t n, int) { return n; }, [](int, std::size_t k) { return c(k); },
     [](int q) { return q == 0; },
     [](Communicator& m, const void*, void* out, std::size_t n, Group g) {
       m.broadcast(out, n, DType::f32, 0, g);
     },
     [](std::size_t i, std::size_t, int) { return c(i); }},
    // all-gather's size is the gathered total (nccl-tests); count is per rank.
    {CollectiveOp::allgather, [](std::size_t b, int n) { return b / (4 * n); },
     [](std::size_t n, int ranks) { return n * ranks; },
     [](int q, std::size_t k) { return q * 16 + c(k); }, [](int) { return false; },
     [](Communicator& m, const void* in, void* out, std::size_t n, Group g) {
       m.allgather(in, out, n, DType::f32, g);
     },
     [](std::size_t i, std::size_t n, int) { return static_cast<float>(i / n) * 16 + c(i % n); }},
};

const CollectiveBenchOp& op_entry(CollectiveOp op) {
  for (const auto& e : kOps)
    if (e.op == op) return e;
  throw UsageError(detail::concat("no collective bench for ", collective_op_name(op)));
}

std::string title(const NodeGrouping& ng, const CollectiveBenchConfig& cfg) {
  return detail::concat(
      "prunex bench --backend ", cfg.backend, ": ", ng.world_size, " ranks = ", ng.nodes(),
      " nodes x ", ng.gpus_per_node, " ranks",
      cfg.gpus_per_node > 0 ? " (emulated nodes)" : " (real hosts)", ", float sum, ", cfg.iters,
      " iterations after ", cfg.warmup, " warm-up",
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
// so the last result can be checked against its closed form. Every rank calls this; ranks
// outside the group (non-leaders for inter) only join the fences, as they do in train
// --sync-phases, and without --sync return at once.
Measured run_case(Communicator& comm, SpaceMemory& mem, const CollectiveBenchOp& e, Group g,
                  std::size_t count, const CollectiveBenchConfig& cfg) {
  const bool member = comm.grouping().takes_part(g, comm.world_rank());
  if (!member && !cfg.sync) return {};
  const int n = member ? comm.size(g) : 0, q = member ? comm.rank(g) : 0;
  const std::size_t out_n = member ? e.out_count(count, n) : 0;
  std::vector<float> in(member ? count : 0), start(out_n, -1.0f), out(out_n);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = e.input(q, k);
  if (member && e.starts_as_input(q)) std::copy(in.begin(), in.end(), start.begin());
  const auto bytes = [](std::size_t n, std::size_t size) { return static_cast<int64_t>(n * size); };
  const SpaceBuffer in_buf = mem.alloc(bytes(in.size(), 4));
  const SpaceBuffer out_buf = mem.alloc(bytes(out_n, 4));
  void* d_in = in_buf.as<void>();
  void* d_out = out_buf.as<void>();
  mem.from_host(d_in, in.data(), bytes(in.size(), 4));
  // As train --sync-phases fences a phase: every rank waits on a world barrier before the
  // call, and again after it so that no rank's next compute burst takes the CPU from ranks
  // still finishing the call. The fence is the world's for every group, as in train: ranks
  // leave a world barrier at different times, and a phase's time includes that skew, which a
  // leaders-only barrier would hide from the bench.
  Measured m;
  std::vector<double> timed;
  for (int it = 0; it < cfg.warmup + cfg.iters; ++it) {
    mem.from_host(d_out, start.data(), bytes(out_n, 4));
    if (cfg.busy_us > 0) busy(cfg.busy_us, cfg.evict);
    if (cfg.sync) comm.barrier(Group::world);
    if (member) {
      comm.clear_calls();
      e.run(comm, d_in, d_out, count, g);
    }
    if (it >= cfg.warmup) timed.push_back(member ? comm.calls().back().seconds : 0.0);
    if (cfg.sync) comm.barrier(Group::world);
  }
  // With --sync the iterations line up across ranks: an iteration's time is its slowest
  // rank's (the critical path, as train reports a phase), and the statistic runs over those.
  if (cfg.sync) {
    std::vector<double> t = timed;
    const SpaceBuffer buf = mem.alloc(bytes(t.size(), 8));
    void* d = buf.as<void>();
    mem.from_host(d, t.data(), bytes(t.size(), 8));
    comm.allreduce(d, t.size(), DType::f64, ReduceOp::max, Group::world);
    mem.to_host(timed.data(), d, bytes(t.size(), 8));
  }
  m.seconds = cfg.median ? median(timed) : mean(timed);
  mem.to_host(out.data(), d_out, bytes(out_n, 4));
  for (std::size_t i = 0; i < out.size(); ++i) m.wrong += out[i] != e.expect(i, count, n);
  return m;
}

// A world reduction of one value through the communicator's memory.
template <typename T>
T world_reduce(Communicator& comm, SpaceMemory& mem, T v, DType t, ReduceOp op) {
  const SpaceBuffer buf = mem.alloc(sizeof(T));
  void* d = buf.as<void>();
  mem.from_host(d, &v, sizeof(T));
  comm.allreduce(d, 1, t, op, Group::world);
  mem.to_host(&v, d, sizeof(T));
  return v;
}

}  // namespace

std::vector<BenchRow> run_collective_bench(Communicator& comm, SpaceMemory& mem,
                                           const CollectiveBenchConfig& cfg) {
  const NodeGrouping& ng = comm.grouping();
  const bool root = comm.world_rank() == 0;
  if (root) print_bench_header(stdout, title(ng, cfg));
  std::vector<BenchRow> rows;
  for (CollectiveOp op : cfg.ops) {
    const CollectiveBenchOp& e = op_entry(op);
    for (Group g : cfg.groups) {
      const int n = ng.group_size(g);
      for (std::size_t bytes : cfg.sizes) {
        const std::size_t count = e.count(bytes, n);
        if (count == 0) continue;
        // Ranks that skip the case (non-leaders for inter, without --sync) wait here.
        const Measured m = run_case(comm, mem, e, g, count, cfg);
        BenchRow row;
        row.op = op;
        row.group = g;
        row.algo = cfg.backend;
        row.count = count;
        row.bytes = e.out_count(count, n) * 4;
        row.time_us = world_reduce(comm, mem, m.seconds, DType::f64, ReduceOp::max) * 1e6;
        row.wrong = static_cast<long>(
            world_reduce<std::int64_t>(comm, mem, m.wrong, DType::i64, ReduceOp::sum));
        fill_bandwidth(row, n);
        if (root) print_bench_row(stdout, row);
        rows.push_back(row);
      }
    }
  }
  if (root) print_bench_footer(stdout, rows);
  return rows;
}

int finish_collective_bench(const Communicator& comm, const std::vector<BenchRow>& rows,
                            const CollectiveBenchConfig& cfg) {
  long wrong = 0;
  for (const auto& r : rows) wrong += r.wrong;
  if (comm.world_rank() == 0) {
    const NodeGrouping& ng = comm.grouping();
    const nlohmann::json context = {{"backend", cfg.backend},
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

}  // namespace prunex
