// `prunex bench --backend sim` (sim_bench.h): the nccl-tests table from simulated time on a modeled
// cluster (backends/simgrid). Each row also carries the alpha-beta closed form and the
// simulated time's relative error against it (JSON; the footer gives the largest).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/simgrid/sim_cluster.h"
#include "bench/sim_bench.h"
#include "engine/error.h"
#include "engine/phases.h"
#include "engine/plan_builder.h"
#include "engine/simulated_masks.h"
#include "netmodel/closed_form.h"
#include "netmodel/nccl_model.h"
#include "records/bench_rows.h"
#include "records/run_record.h"
#include "simulate/simulate_config.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

// A synthetic model of about `bytes` fp32 bytes for the iteration probe: 8 convolutions of
// C x C x 3 x 3 with C = round(sqrt(bytes / 4 / 72)) (the first is the stem, not pruned),
// forward FLOPs `flops` / 3 per sample, so that one local step of one sample computes
// `flops` (plan_builder.h: 3 x forward).
ModelLayout synthetic_layout(double bytes, double flops) {
  const auto c = std::max<int64_t>(1, std::llround(std::sqrt(bytes / 4 / 72)));
  ModelLayout layout;
  layout.model = "synthetic";
  for (int i = 0; i < 8; ++i) {
    LayerInfo l;
    l.name = "conv" + std::to_string(i) + ".weight";
    l.role = LayerRole::conv_weight;
    l.shape = {c, c, 3, 3};
    l.forward_flops = i == 0 ? flops / 3 : 0;
    layout.layers.push_back(l);
  }
  return layout;
}

int run_iteration_probe(const SimBench& b) {
  const double bytes = b.probe.bytes, keep = b.probe.keep, flops = b.probe.flops;
  const Strategy strategy = b.probe.strategy;
  // The engine's plan for one iteration of one local step on a synthetic model; hsadmm's
  // payload mask keeps `keep` of every pruned layer's channels on every node (growth 0).
  const ModelLayout layout = synthetic_layout(bytes, flops);
  const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(keep));
  const ModelMask mask = synthetic_union_mask(layout, spec, 0.0, b.config.nodes);
  PlanInputs in;
  in.layout = &layout;
  in.run.strategy = strategy;
  in.nodes = b.config.nodes;
  in.gpus_per_node = b.config.gpus_per_node;
  in.run.batch = 1;
  in.samples = static_cast<long>(b.config.nodes) * b.config.gpus_per_node;
  in.run.local_steps = 1;
  in.global_mask = &mask;
  const IterationPlan plan = build_plan(in);
  const auto wall0 = std::chrono::steady_clock::now();
  sim::SimConfig cfg = b.config;
  sim::SimCluster cluster(b.topology, cfg);
  const double build_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const sim::PlanTiming t = cluster.run_plan(plan);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf(
      "# prunex bench --backend sim --op iteration: topology %s%s, %d nodes x %d GPUs, "
      "algo %s, model %s\n# %s iteration (engine plan, one local step) of a synthetic model: "
      "8 convolutions, dense %lld B, channel keep %.3f, %.3g flops per GPU\n#%16s %14s %14s\n",
      b.topology.name.c_str(), b.scaled ? " (scaled out)" : "", cfg.nodes, cfg.gpus_per_node,
      sim::algo_name(b.config.plan_algo), cluster.model_description().c_str(),
      std::string(strategy_name(strategy)).c_str(), static_cast<long long>(layout.fp32_bytes()),
      keep, flops, "phase", "start (s)", "seconds");
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& st : t.steps) {
    const std::string name(phase_name(st.phase));
    std::printf(" %16s %14.6f %14.6f\n", name.c_str(), st.start_s, st.seconds);
    steps.push_back({{"phase", name}, {"start_s", st.start_s}, {"seconds", st.seconds}});
  }
  std::printf("# iteration: %.6f s simulated; wall %.2f s (platform %.2f s)\n", t.iteration_seconds,
              wall_s, build_s);
  if (!b.json.empty())
    write_file_atomic(b.json, nlohmann::json{{"steps", steps},
                                             {"iteration_seconds", t.iteration_seconds},
                                             {"wall_seconds", wall_s},
                                             {"network_model", cluster.model_description()}}
                                      .dump(2) +
                                  "\n");
  return 0;
}

// The rows beside NCCL's tuning model: its time, protocol and bus bandwidth, and ours over
// its (time) as a relative difference; the geometric mean of the ratios over modeled rows.
void print_nccl_comparison(const std::vector<BenchRow>& rows,
                           const std::vector<sim::NcclEstimate>& nccl) {
  std::printf(
      "# Beside NCCL's tuning model (NVIDIA/nccl v2.25.1 src/graph/tuning.cc; channels from our "
      "layout at NCCL's link speeds, %s generation)\n",
      nccl.empty() ? "?" : nccl.front().generation.c_str());
  std::printf("#%12s %10s %6s %12s %12s %7s %10s %10s %9s\n", "size", "op", "group", "ours (us)",
              "nccl (us)", "proto", "ours busbw", "nccl busbw", "ours/nccl");
  double log_sum = 0;
  int modeled = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& m = nccl[i];
    const std::string op(collective_op_name(r.op)), group(group_name(r.group));
    if (!m.modeled) {
      std::printf(" %12zu %10s %6s %12.2f %12s %7s %10.3f %10s %9s\n", r.bytes, op.c_str(),
                  group.c_str(), r.time_us, "n/a", "-", r.busbw_gbs, "n/a", "-");
      continue;
    }
    const double ratio = r.time_us / (m.seconds * 1e6);
    log_sum += std::log(ratio);
    ++modeled;
    std::printf(" %12zu %10s %6s %12.2f %12.2f %7s %10.3f %10.3f %+8.1f%%\n", r.bytes, op.c_str(),
                group.c_str(), r.time_us, m.seconds * 1e6, sim::nccl_proto_name(m.proto),
                r.busbw_gbs, m.busbw_Bps / 1e9, 100 * (ratio - 1));
  }
  if (modeled > 0)
    std::printf("# ours / NCCL model, geometric mean over %d rows: %.3f\n", modeled,
                std::exp(log_sum / modeled));
  else
    std::printf(
        "# NCCL's model has no such collective/algorithm (hierarchical, tree all-gather)\n");
}

}  // namespace

int run_sim_bench(const SimBench& b) {
  if (b.ops.empty()) return run_iteration_probe(b);
  sim::SimCluster cluster(b.topology, b.config);
  print_bench_header(
      stdout,
      detail::concat("prunex bench --backend sim: topology ", b.topology.name,
                     b.scaled ? " (scaled out)" : "", ", ", b.config.nodes, " nodes x ",
                     b.config.gpus_per_node, " GPUs, algo ", sim::algo_name(b.config.plan_algo),
                     ", network model ", cluster.model_description(),
                     "; simulated time, no data carried: #wrong counts collectives whose "
                     "delivered bytes differ from the algorithm's total"));
  std::vector<BenchRow> rows;
  std::vector<sim::NcclEstimate> nccl;
  nlohmann::json extra = nlohmann::json::array();
  double worst = 0;
  int compared = 0;
  for (CollectiveOp op : b.ops)
    for (Group g : b.groups) {
      const int n =
          NodeGrouping{b.config.nodes * b.config.gpus_per_node, b.config.gpus_per_node}.group_size(
              g);
      if (n < 2) continue;
      for (std::size_t bytes : b.sizes) {
        // all-gather's size is the gathered total (nccl-tests); each rank sends bytes / n.
        const std::size_t count = op == CollectiveOp::allgather ? bytes / (4 * n) : bytes / 4;
        if (count == 0) continue;
        const std::size_t per_rank = count * 4;
        const auto r = cluster.run_collective(op, b.config.plan_algo, g, per_rank);
        const sim::Algo algo = r.algo;  // --algo nccl: the one picked
        const double want = sim::expected_total_bytes(op, algo, g, b.config.nodes,
                                                      b.config.gpus_per_node, per_rank);
        BenchRow row;
        row.op = op;
        row.group = g;
        row.algo = sim::algo_name(algo);
        row.bytes = op == CollectiveOp::allgather ? count * 4 * n : count * 4;
        row.count = count;
        row.time_us = r.seconds * 1e6;
        row.wrong = std::abs(r.delivered_bytes - want) > 0.5 * r.flows + 1e-9 * want;
        fill_bandwidth(row, n);
        print_bench_row(stdout, row);
        rows.push_back(row);
        // A calibrated per-op cost replaces the topology's constants for this op: no closed
        // form of the topology to compare with (tests/cli/calibrate.sh checks those times).
        const bool op_calibrated = b.config.op_costs.count(sim::op_cost_key(op, g)) > 0;
        const double cf =
            op_calibrated ? std::nan("")
                          : sim::closed_form_seconds(b.topology, b.config.nodes,
                                                     b.config.gpus_per_node, op, algo, g, per_rank);
        nlohmann::json e = {{"simulated", true},
                            {"network_model", cluster.model_description()},
                            {"topology", b.topology.name},
                            {"backend", "sim"},
                            {"nodes", b.config.nodes},
                            {"gpus_per_node", b.config.gpus_per_node},
                            {"flows", r.flows}};
        if (!r.protocol.empty()) e["protocol"] = r.protocol;
        if (std::isfinite(cf)) {
          e["closed_form_us"] = cf * 1e6;
          e["closed_form_rel_err"] = r.seconds / cf - 1;
          worst = std::max(worst, std::abs(r.seconds / cf - 1));
          ++compared;
        }
        if (b.nccl_model) {
          nccl.push_back(sim::nccl_model(b.stated, b.config.nodes, b.config.gpus_per_node, op, algo,
                                         g, per_rank, b.proto));
          const auto& m = nccl.back();
          if (m.modeled) {
            e["nccl_model_us"] = m.seconds * 1e6;
            e["nccl_model_busbw_GBps"] = m.busbw_Bps / 1e9;
            e["nccl_model_protocol"] = sim::nccl_proto_name(m.proto);
            e["nccl_model_rel_diff"] = r.seconds / m.seconds - 1;
          }
        }
        extra.push_back(e);
      }
    }
  print_bench_footer(stdout, rows);
  if (compared > 0)
    std::printf("# Closed form (alpha-beta, uncongested) : max |rel err| %.4f %% over %d rows\n",
                100 * worst, compared);
  else
    std::printf("# Closed form (alpha-beta, uncongested) : none stated for this case\n");
  if (b.nccl_model) print_nccl_comparison(rows, nccl);
  if (!b.json.empty()) {
    nlohmann::json j = bench_rows_json(rows);
    for (std::size_t i = 0; i < j.size(); ++i) j[i].update(extra[i]);
    write_file_atomic(b.json, j.dump(2) + "\n");
  }
  return 0;
}

}  // namespace prunex
