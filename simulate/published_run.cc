// Running the published-measurement suite (published.h): the fits, every point, and each
// point four more times with one resource twice as fast (what binds).
#include <cmath>

#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "records/bench_rows.h"
#include "simulate/fork_run.h"
#include "simulate/published.h"
#include "simulate/simulate_config.h"
#include "topologies/topology_io.h"

namespace prunex::sim {

namespace {

// One resource of the topology twice as fast (which = 0..3 as kBindingResources); -1: as it
// is.
void speed_up(Topology& t, int which) {
  switch (which) {
    case 0:
      t.gpu.fp32_flops *= 2;
      t.gpu.mem_bandwidth_Bps *= 2;
      break;
    case 1:
      t.intra.link.bandwidth_Bps *= 2;
      break;
    case 2:
      t.nic.link.bandwidth_Bps *= 2;
      t.fabric.link.bandwidth_Bps *= 2;
      break;
    case 3:
      t.intra.link.latency_s /= 2;
      t.nic.link.latency_s /= 2;
      t.fabric.link.latency_s /= 2;
      break;
    default:
      break;
  }
}

// One point ready to simulate, built once in the parent (the children inherit it): a
// training point's spec (its GPU speed is set per run) and batch, or a collective entry's
// topology at the rates asked for.
struct Job {
  const PublishedEntry* entry = nullptr;
  const PublishedPoint* point = nullptr;
  double flops = 0;  // the fitted effective FLOP/s (0: the topology's)
  SimulateSpec spec;
  double batch = 0;
  Topology topology;
  bool call_latency = false;  // a collective entry: NCCL's base latency per call
};

// `overrides` stand in for simulate's defaults: what the entry or the point states wins (a
// "no ddp" row keeps its zero DDP overhead).
Job prepare(const PublishedEntry& e, const PublishedPoint& p, const nlohmann::json& overrides,
            const SimulateConfig& defaults) {
  const bool achieved = defaults.achieved_bandwidth;
  Job j;
  j.entry = &e;
  j.point = &p;
  if (e.bench.is_object()) {
    j.call_latency = defaults.call_latency;
    j.topology = load_topology(e.bench.at("topology"));
    if (p.nodes > j.topology.nodes) j.topology = scale_to_nodes(j.topology, p.nodes);
    if (achieved) j.topology = achieved_bandwidths(j.topology);
    return j;
  }
  nlohmann::json settings = overrides;
  const nlohmann::json own = published_point_settings(e, p);
  for (const auto& [k, v] : own.items()) settings[k] = v;
  SimulateConfig cfg;
  apply_config_json(simulate_fields(), cfg, settings, e.id);
  j.spec = make_spec(cfg, /*records=*/false);
  j.batch = cfg.batch;
  return j;
}

// One step of a training point with the GPU at `flops` effective FLOP/s (<= 0: the
// topology's own) and resource `which` doubled.
SimulationResult step_run(const SimulateSpec& base, double flops, int which) {
  SimulateSpec spec = base;
  if (flops > 0) {
    spec.topology.gpu.fp32_flops = flops;
    spec.topology.gpu.efficiency = 1;
  }
  speed_up(spec.topology, which);
  return simulate_run(spec, /*records=*/false);
}

double step_seconds(const SimulateSpec& base, double flops, int which) {
  return step_run(base, flops, which).time_per_iteration_s;
}

// Seconds of the collective of a bench entry on nodes x gpus_per_node, resource doubled.
double collective_seconds(const Job& j, int which) {
  Topology t = j.topology;
  speed_up(t, which);
  SimConfig cfg;
  cfg.nodes = j.point->nodes;
  cfg.gpus_per_node = j.point->gpus_per_node;
  const Algo algo = parse_algo(j.entry->bench.at("algo").get<std::string>());
  cfg.plan_algo = algo;
  cfg.call_latency = j.call_latency;
  SimCluster cluster(t, cfg);
  return cluster
      .run_collective(parse_op(j.entry->bench.at("op").get<std::string>()), algo, Group::world,
                      j.entry->bench.at("bytes").get<std::size_t>())
      .seconds;
}

// {seconds, the share of them the collectives' exposed time takes (a collective entry: 1)}.
std::vector<double> job_seconds(const Job& j, int which) {
  if (j.entry->bench.is_object()) return {collective_seconds(j, which), 1.0};
  const SimulationResult r = step_run(j.spec, j.flops, which);
  return {r.time_per_iteration_s, r.communication_share};
}

// The published value as the time of one step (or one collective), for the fit.
double published_seconds(const PublishedEntry& e, const PublishedPoint& p, double batch) {
  const double gpus = static_cast<double>(p.nodes) * p.gpus_per_node;
  return e.quantity == Quantity::images_per_second ? batch * gpus / p.value : p.value;
}

// The quantity the entry publishes, from the predicted seconds.
double as_quantity(const PublishedEntry& e, const PublishedPoint& p, double seconds, double batch) {
  const int n = p.nodes * p.gpus_per_node;
  switch (e.quantity) {
    case Quantity::seconds_per_iteration:
    case Quantity::seconds_per_op:
      return seconds;
    case Quantity::images_per_second:
      return batch * n / seconds;
    case Quantity::busbw_GBps: {
      const double bytes = e.bench.at("bytes").get<double>();
      return bytes / seconds * busbw_factor(parse_op(e.bench.at("op").get<std::string>()), n) / 1e9;
    }
  }
  return 0;
}

// The effective FLOP/s at which the fit point is predicted exactly: the step time falls as
// the speed rises, linearly in 1/speed while compute is not hidden, so secant steps on
// 1/speed converge in a few runs.
double fit_flops(const Job& fit, const std::function<void()>& ran) {
  const PublishedEntry& e = *fit.entry;
  const double want = published_seconds(e, *fit.point, fit.batch);
  auto at = [&](double x) {
    const double s =
        fork_run([&] { return std::vector<double>{step_seconds(fit.spec, 1 / x, -1)}; }).at(0);
    ran();
    return s;
  };
  double x0 = 1 / fit.spec.topology.gpu.effective_flops(), t0 = at(x0);
  double x1 = x0 * want / t0, t1 = at(x1);
  for (int i = 0; i < 12 && std::abs(t1 / want - 1) > 1e-4; ++i) {
    const double slope = (t1 - t0) / (x1 - x0);
    PRUNEX_USAGE(slope > 0, e.id, ": the fit point's time does not depend on the GPU speed");
    x0 = x1;
    t0 = t1;
    x1 = std::max(x1 + (want - t1) / slope, x1 / 16);
    t1 = at(x1);
  }
  PRUNEX_USAGE(std::abs(t1 / want - 1) < 1e-3, e.id, ": no GPU speed predicts the fit point '",
               e.fit, "' (", want, " s; the closest is ", t1,
               " s: the step's communication alone takes longer)");
  return 1 / x1;
}

}  // namespace

PublishedResult run_published_suite(const std::vector<PublishedEntry>& suite, int jobs,
                                    const nlohmann::json& overrides,
                                    const std::function<void(int, int)>& progress) {
  PublishedResult result;
  int total = 0, done = 0;
  for (const auto& e : suite)
    if (e.not_modelled.empty()) total += 5 * static_cast<int>(e.points.size());
  auto tick = [&] { progress(++done, total); };

  // The overrides through simulate's own field parsers (they were checked so already).
  SimulateConfig defaults;
  apply_config_json(simulate_fields(), defaults, overrides, "--set");
  std::vector<Job> list;
  for (const auto& e : suite) {
    if (!e.not_modelled.empty()) continue;
    const std::size_t first = list.size();
    for (const auto& p : e.points) list.push_back(prepare(e, p, overrides, defaults));
    double flops = 0;
    for (const auto& [id, f] : result.fitted_flops)
      if (id == e.fit_from) flops = f;
    for (std::size_t k = first; k < list.size() && !e.fit.empty(); ++k)
      if (list[k].point->label == e.fit) {
        flops = fit_flops(list[k], [&] {
          ++total;
          tick();
        });
        result.fitted_flops.emplace_back(e.id, flops);
      }
    for (std::size_t k = first; k < list.size(); ++k) list[k].flops = flops;
  }
  std::vector<std::function<std::vector<double>()>> runs;
  for (const Job& j : list)
    for (int which = -1; which < 4; ++which)
      runs.push_back([&j, which] { return job_seconds(j, which); });
  std::vector<double> seconds(runs.size()), shares(runs.size());
  fork_run_all(runs, jobs, {}, 0, [&](std::size_t i, const std::vector<double>& r) {
    seconds[i] = r.at(0);
    shares[i] = r.at(1);
    tick();
  });
  for (std::size_t k = 0; k < list.size(); ++k) {
    const PublishedEntry& e = *list[k].entry;
    const PublishedPoint& p = *list[k].point;
    PublishedRow row;
    row.entry = e.id;
    row.label = p.label;
    row.nodes = p.nodes;
    row.gpus_per_node = p.gpus_per_node;
    row.quantity = e.quantity;
    row.published = p.value;
    row.fit = p.label == e.fit || !p.fits.empty();
    row.step_s = seconds[5 * k];
    row.predicted = as_quantity(e, p, row.step_s, list[k].batch);
    int best = 0;
    for (int w = 0; w < 4; ++w) {
      row.saved[w] = row.step_s - seconds[5 * k + 1 + w];
      if (row.saved[w] > row.saved[best]) best = w;
    }
    row.binds = kBindingResources[best];
    // A training point's key is its spec's (make_spec: nodes, precision); the speed is the fit's.
    if (e.bench.is_object()) {
      row.key.collective = true;
    } else {
      row.key = list[k].spec.band_key;
      row.key.measured_speed = list[k].flops > 0;
    }
    row.communication_share = shares[5 * k];
    row.key = bound_by(row.key, row.communication_share);
    result.rows.push_back(row);
  }
  return result;
}

double PublishedRow::log_ratio() const {
  const bool inverse = quantity == Quantity::images_per_second || quantity == Quantity::busbw_GBps;
  return inverse ? std::log(published / predicted) : std::log(predicted / published);
}

std::vector<Residual> held_out_residuals(const std::vector<PublishedRow>& rows) {
  std::vector<Residual> out;
  for (const auto& r : rows)
    if (!r.fit) out.push_back({r.entry, r.key, r.log_ratio()});
  return out;
}

double geomean_abs_error(const std::vector<PublishedRow>& rows) {
  double sum = 0;
  int n = 0;
  for (const auto& r : rows)
    if (!r.fit) {
      sum += std::abs(std::log(r.predicted / r.published));
      ++n;
    }
  return n == 0 ? 0 : std::exp(sum / n) - 1;
}

}  // namespace prunex::sim
