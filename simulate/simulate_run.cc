#include "simulate/simulate_run.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "engine/error.h"
#include "engine/tier_bytes.h"

namespace prunex::sim {
namespace {

struct Simulated {
  IterationPlan plan;
  PlanTiming timing;
  std::vector<double> exposed;  // per step: its time beyond everything placed before it
  // Per step: how long nothing ran before it started (the wait for the last rank, Horovod's
  // cycle). With `exposed`, every second of the iteration is in one of them.
  std::vector<double> idle_before;
};

Simulated simulate_plan(SimCluster& cluster, const PlanInputs& in) {
  Simulated s;
  s.plan = build_plan(in);
  s.timing = cluster.run_plan(s.plan);
  double frontier = 0;
  for (const auto& st : s.timing.steps) {
    const double end = st.start_s + st.seconds;
    s.idle_before.push_back(std::max(0.0, st.start_s - frontier));
    s.exposed.push_back(std::max(0.0, end - std::max(frontier, st.start_s)));
    frontier = std::max(frontier, end);
  }
  return s;
}

IterationRecord make_record(const SimulateSpec& spec, const Simulated& s, int k, bool frozen,
                            long repeats) {
  const int P = spec.sim.gpus_per_node, W = spec.sim.nodes * P;
  const NodeGrouping grouping{W, P};
  const double R = static_cast<double>(repeats);
  IterationRecord it;
  it.iteration = k;
  it.wall_seconds = R * s.timing.iteration_seconds;
  for (size_t i = 0; i < s.plan.steps.size(); ++i) {
    const PlanStep& step = s.plan.steps[i];
    auto& per_rank = it.phase_seconds[step.phase];
    per_rank.resize(W, 0.0);
    const double t = R * s.exposed[i];
    // A compute step's ranks each count their own share (a straggler's is the whole step;
    // the others wait for it in the next collective, not in local_compute).
    const StepTiming& st = s.timing.steps[i];
    const bool own = step.kind == StepKind::compute && st.seconds > 0 &&
                     static_cast<int>(st.rank_seconds.size()) == W;
    for (int r = 0; r < W; ++r)
      if (takes_part(step, grouping, r))
        per_rank[r] += own ? t * st.rank_seconds[r] / st.seconds : t;
    // Time in which no step ran: every rank waits (the row sync_wait), so the phases' critical
    // paths add up to the iteration.
    if (s.idle_before[i] > 0) {
      auto& wait = it.phase_seconds[Phase::sync_wait];
      wait.resize(W, 0.0);
      for (double& w : wait) w += R * s.idle_before[i];
    }
  }
  // Counted as the live run counts it: rank 0's collectives (a leader takes part in every
  // group), the untimed residual all-reduce included (engine/tier_bytes.h).
  const Strategy st = spec.plan.run.strategy;
  const TierBytes per_run = tier_bytes(plan_calls(s.plan, grouping, 0), st, grouping);
  it.bytes = {R * per_run.intra, R * per_run.inter, R * per_run.world};
  it.dense_inter_bytes =
      tier_carries(Group::inter, grouping, R * static_cast<double>(spec.layout.fp32_bytes()));
  if (st == Strategy::hsadmm_rail) it.dense_inter_bytes /= grouping.gpus_per_node;  // per rank
  if (is_consensus(st)) {
    for (size_t l = 0; l < spec.layout.layers.size(); ++l)
      if (spec.mask.pruned(l)) it.density[spec.layout.layers[l].name] = spec.mask[l].density();
    it.mask_frozen = frozen;  // after iteration t_freeze's step, as the live freezer reports
  }
  it.extra["simulated"] = true;
  it.extra["plan_repeats"] = repeats;
  return it;
}

std::vector<int> traced_ranks(const SimulateSpec& spec) {
  const int P = spec.sim.gpus_per_node, M = spec.sim.nodes;
  std::vector<int> ranks;
  if (M * P <= spec.max_trace_ranks) {
    for (int r = 0; r < M * P; ++r) ranks.push_back(r);
    return ranks;
  }
  for (int r = 0; r < std::min(M, 2) * P; ++r) ranks.push_back(r);
  for (int n = 2; n < std::min(M, spec.max_trace_ranks); ++n) ranks.push_back(n * P);
  return ranks;
}

void add_trace(const Simulated& s, double t0, const std::vector<int>& ranks,
               const NodeGrouping& grouping, std::vector<TraceEvent>& out) {
  for (size_t i = 0; i < s.plan.steps.size(); ++i) {
    const StepTiming& st = s.timing.steps[i];
    if (st.seconds <= 0) continue;
    for (int r : ranks)
      if (takes_part(s.plan.steps[i], grouping, r))
        out.push_back({r, st.phase, t0 + st.start_s, st.seconds});
  }
}

// Iteration k's plan, simulated once per variant, as the live freezer runs it: the mask
// freezes after iteration t_freeze's step (t_freeze > 0). Variants are keyed by the freeze
// state and the mask they compact with (distinct masks are distinct objects).
class PlanCache {
 public:
  PlanCache(const SimulateSpec& spec, SimCluster& cluster)
      : spec_(spec), cluster_(cluster), in_(spec_plan_inputs(spec)) {}
  const PlanInputs& inputs() const { return in_; }
  bool frozen_after(int k) const { return spec_.t_freeze > 0 && k >= spec_.t_freeze; }

  const Simulated& of(int k) {
    if (in_.run.strategy == Strategy::hsadmm) {  // the others' plans do not change
      set_freeze_state(in_, frozen_after(k - 2), frozen_after(k - 1), frozen_after(k));
      in_.global_mask = spec_.payload_masks.empty() ? &spec_.mask : &spec_.payload_masks.of(k);
    }
    const auto key =
        std::make_tuple(in_.mask_frozen, in_.build_compaction, in_.project_global, in_.global_mask);
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, simulate_plan(cluster_, in_)).first;
    return it->second;
  }

 private:
  const SimulateSpec& spec_;
  SimCluster& cluster_;
  PlanInputs in_;
  std::map<std::tuple<bool, bool, bool, const ModelMask*>, Simulated> plans_;
};

// The facts of the run beside its settings.
void record_facts(const SimulateSpec& spec, const SimCluster& cluster, const PlanInputs& in,
                  long repeats, std::size_t traced, nlohmann::json& config) {
  config = spec.config;
  config["executor"] = "simgrid";
  config["network-model-description"] = cluster.model_description();
  config["world-size"] = cluster.world_size();
  config["nodes"] = spec.sim.nodes;
  config["gpus-per-node"] = spec.sim.gpus_per_node;
  config["steps-per-epoch"] = steps_per_epoch(in);
  config["plan-repeats"] = repeats;
  config["effective-flops"] = spec.topology.gpu.effective_flops();
  config["trace-ranks"] = static_cast<int>(traced) == cluster.world_size()
                              ? std::string("all")
                              : "first 2 nodes + leaders of the first " +
                                    std::to_string(spec.max_trace_ranks) + " nodes (" +
                                    std::to_string(traced) + " ranks)";
  config["trace-steps"] = repeats > 1 ? "first local step of each iteration" : "all";
}

// The links a record lists at most: a cluster of thousands of nodes has tens of thousands
// (8,192 GPUs on puhti: about 40,000, 5 MB of JSON); beyond this the busiest are kept and
// summary.links_total says how many there were.
constexpr std::size_t kRecordedLinks = 4096;

// Every link a collective crossed over the run, busiest first: its bytes per iteration and
// the share of its bandwidth they take over the run's time (bytes / (bandwidth x time)).
nlohmann::json link_loads(const SimulateSpec& spec, PlanCache& plans, long repeats, double run_s,
                          std::size_t& total) {
  std::map<std::string, LinkLoad> sum;
  for (int k = 1; k <= spec.iterations; ++k)
    for (const LinkLoad& l : plans.of(k).timing.links) {
      LinkLoad& x = sum[l.name];
      x.name = l.name;
      x.bandwidth_Bps = l.bandwidth_Bps;
      x.bytes += static_cast<double>(repeats) * l.bytes;
    }
  std::vector<LinkLoad> links;
  for (auto& [name, l] : sum) links.push_back(l);
  auto utilisation = [run_s](const LinkLoad& l) {
    return run_s > 0 && l.bandwidth_Bps > 0 ? l.bytes / (l.bandwidth_Bps * run_s) : 0.0;
  };
  std::stable_sort(links.begin(), links.end(), [&](const LinkLoad& a, const LinkLoad& b) {
    return utilisation(a) > utilisation(b);
  });
  total = links.size();
  if (links.size() > kRecordedLinks) links.resize(kRecordedLinks);
  nlohmann::json out = nlohmann::json::array();
  for (const LinkLoad& l : links)
    out.push_back({{"link", l.name},
                   {"bytes_per_iteration", l.bytes / spec.iterations},
                   {"bandwidth_Bps", l.bandwidth_Bps},
                   {"utilisation", utilisation(l)}});
  return out;
}

// The busiest links get a counter track in trace.json: each iteration's utilisation, from its
// start (the iteration's bytes on the link over its bandwidth x the iteration's time).
constexpr std::size_t kTracedLinks = 8;

void add_link_counters(const Simulated& s, double t0, const nlohmann::json& busiest,
                       std::vector<TraceCounter>& out) {
  const auto& links = s.timing.links;  // sorted by name (SimCluster::run_plan)
  const double t = s.timing.iteration_seconds;
  for (std::size_t i = 0; i < std::min(kTracedLinks, busiest.size()); ++i) {
    const std::string name = busiest[i]["link"].get<std::string>();
    const auto it =
        std::lower_bound(links.begin(), links.end(), name,
                         [](const LinkLoad& l, const std::string& n) { return l.name < n; });
    const bool found = it != links.end() && it->name == name;
    const double u =
        found && it->bandwidth_Bps > 0 && t > 0 ? it->bytes / (it->bandwidth_Bps * t) : 0.0;
    out.push_back({"link " + name, "utilisation %", t0, 100 * u});
  }
}

nlohmann::json failures_summary(const FailureEstimate& e) {
  return {{"model",
           "independent exponential node failures; expected wall time with checkpoints (Daly "
           "2006): M e^(R/M) (e^((tau + delta)/M) - 1) Ts / tau"},
          {"failure_free_s", e.solve_s},
          {"system_mtbf_s", e.system_mtbf_s},
          {"checkpoint_interval_s", e.interval_s},
          {"young_interval_s", e.young_interval_s},
          {"daly_interval_s", e.daly_interval_s},
          {"expected_s", e.expected_s},
          {"expected_at_daly_interval_s", e.expected_at_daly_s},
          {"expected_failures", e.failures}};
}

}  // namespace

PlanInputs spec_plan_inputs(const SimulateSpec& spec) {
  PlanInputs in = spec.plan;
  in.layout = &spec.layout;
  in.global_mask = &spec.mask;
  in.nodes = spec.sim.nodes;
  in.gpus_per_node = spec.sim.gpus_per_node;
  return in;
}

SimulationResult simulate_run(const SimulateSpec& spec, bool records) {
  PRUNEX_USAGE(spec.iterations >= 1, "iterations must be >= 1 (got ", spec.iterations, ")");
  PRUNEX_USAGE(spec.t_freeze >= 0, "t-freeze must be >= 0 (got ", spec.t_freeze, ")");
  const auto wall0 = std::chrono::steady_clock::now();
  SimCluster cluster(spec.topology, spec.sim);
  PlanCache plans(spec, cluster);
  const long repeats = plan_repeats(plans.inputs());

  SimulationResult out;
  double total = 0, communication = 0;
  for (int k = 1; k <= spec.iterations; ++k) {
    const Simulated& s = plans.of(k);
    total += static_cast<double>(repeats) * s.timing.iteration_seconds;
    for (std::size_t i = 0; i < s.plan.steps.size(); ++i)
      if (s.plan.steps[i].kind == StepKind::collective)
        communication += static_cast<double>(repeats) * s.exposed[i];
  }
  out.communication_share = total > 0 ? communication / total : 0;
  out.time_per_iteration_s = total / spec.iterations;
  out.run_s = total;
  if (spec.failures.node_mtbf_s > 0) {
    const auto& f = spec.failures;
    out.failures = estimate_failures(total, spec.sim.nodes, f.node_mtbf_s, f.interval_s,
                                     f.checkpoint_s, f.restart_s);
  }
  out.time_per_epoch_s = out.time_per_iteration_s *
                         static_cast<double>(steps_per_epoch(plans.inputs())) /
                         static_cast<double>(steps_per_iteration(plans.inputs()));
  if (!records) return out;

  RunRecord& run = out.run;
  run.ranks = cluster.world_size();
  const auto ranks = traced_ranks(spec);
  record_facts(spec, cluster, plans.inputs(), repeats, ranks.size(), run.config);
  std::size_t links_total = 0;
  run.summary_extra["links"] = link_loads(spec, plans, repeats, out.run_s, links_total);
  run.summary_extra["links_total"] = links_total;
  double t0 = 0;
  for (int k = 1; k <= spec.iterations; ++k) {
    const Simulated& s = plans.of(k);
    run.iterations.push_back(make_record(spec, s, k, plans.frozen_after(k), repeats));
    add_trace(s, t0, ranks, NodeGrouping{cluster.world_size(), spec.sim.gpus_per_node}, run.trace);
    add_link_counters(s, t0, run.summary_extra["links"], run.counters);
    t0 += static_cast<double>(repeats) * s.timing.iteration_seconds;
  }
  const nlohmann::json& busiest = run.summary_extra["links"];
  for (std::size_t i = 0; i < std::min(kTracedLinks, busiest.size()); ++i)  // tracks end here
    run.counters.push_back(
        {"link " + busiest[i]["link"].get<std::string>(), "utilisation %", t0, 0});
  run.summary_extra["strategy"] = std::string(strategy_name(spec.plan.run.strategy));
  run.summary_extra["time_per_epoch_s"] = out.time_per_epoch_s;
  run.summary_extra["run_s"] = out.run_s;
  if (out.failures) run.summary_extra["failures"] = failures_summary(*out.failures);
  run.summary_extra["simulation_wall_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

}  // namespace prunex::sim
