#include "calibration/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "engine/error.h"
#include "netmodel/closed_form.h"
#include "netmodel/collectives.h"
#include "records/bench_rows.h"

namespace prunex::sim {
namespace {

double closed_form(const Topology& t, const BenchPoint& p) {
  const CollectiveOp op = p.op;
  const double per_rank = op == CollectiveOp::allgather ? p.bytes / p.ranks : p.bytes;
  return closed_form_seconds(t, p.nodes, p.gpus_per_node, op, Algo::ring, p.group,
                             static_cast<std::size_t>(per_rank));
}

struct Coefficients {
  double c_latency = 0, c_inv_bw = 0;
};

// t = c_latency * L + c_inv_bw / B when the given tiers' links all have (L, B), from the
// closed form itself.
Coefficients coefficients(Topology t, const std::vector<std::string>& tiers, const BenchPoint& p) {
  for (const auto& tier : tiers) set_tier(t, tier, 1.0, 1e30);
  const double with_latency = closed_form(t, p);
  for (const auto& tier : tiers) set_tier(t, tier, 0.0, 1.0);
  return {with_latency, closed_form(t, p)};
}

// Within --min-bytes .. --max-bytes and --ops.
bool in_range(const BenchPoint& p, const FitOptions& o) {
  return p.bytes >= o.min_bytes && p.bytes <= o.max_bytes &&
         (o.ops.empty() || std::find(o.ops.begin(), o.ops.end(), p.op) != o.ops.end());
}

// A tier fit uses its own group's rows (world rows cross both tiers).
bool in_tier_fit(const BenchPoint& p, const FitOptions& o) {
  return p.group != Group::world && in_range(p, o);
}

// Least squares of sum ((a_i x + b_i y) / t_i - 1)^2 over (x, y) = (L, 1/B), both >= 0.
std::pair<double, double> solve(const std::vector<Coefficients>& c, const std::vector<double>& t) {
  double saa = 0, sab = 0, sbb = 0, sa = 0, sb = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double a = c[i].c_latency / t[i], b = c[i].c_inv_bw / t[i];
    saa += a * a;
    sab += a * b;
    sbb += b * b;
    sa += a;
    sb += b;
  }
  const double det = saa * sbb - sab * sab;
  if (std::abs(det) > 1e-12 * saa * sbb) {
    const double x = (sa * sbb - sb * sab) / det, y = (saa * sb - sab * sa) / det;
    if (x >= 0 && y > 0) return {x, y};
  }
  // One parameter: the better of latency only and bandwidth only.
  const double x = saa > 0 ? sa / saa : 0, y = sbb > 0 ? sb / sbb : 0;
  auto cost = [&](double xx, double yy) {
    double e = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      const double r = (c[i].c_latency * xx + c[i].c_inv_bw * yy) / t[i] - 1;
      e += r * r;
    }
    return e;
  };
  return cost(x, 0) < cost(0, y) ? std::make_pair(x, 0.0) : std::make_pair(0.0, y);
}

}  // namespace

FitMode parse_fit_mode(const std::string& name, const std::string& where) {
  if (name == "line") return FitMode::line;
  PRUNEX_USAGE(name == "piecewise", where, ": unknown fit '", name, "' (line or piecewise)");
  return FitMode::piecewise;
}

const char* fit_mode_name(FitMode m) {
  return m == FitMode::line ? "line" : "piecewise";
}

namespace {

// Fits (L, B) to the points `use` selects, with coefficients from `coeff`.
template <typename Use, typename Coeff>
TierFit fit_points(const std::vector<BenchPoint>& pts, Use use, Coeff coeff) {
  std::vector<Coefficients> c;
  std::vector<double> t;
  TierFit f;
  f.min_bytes = 1e300;
  for (const auto& p : pts) {
    if (!use(p)) continue;
    c.push_back(coeff(p));
    t.push_back(p.seconds);
    f.min_bytes = std::min(f.min_bytes, p.bytes);
    f.max_bytes = std::max(f.max_bytes, p.bytes);
    const bool first = c.size() == 1;
    f.nodes = first || f.nodes == p.nodes ? p.nodes : 0;
    f.gpus_per_node = first || f.gpus_per_node == p.gpus_per_node ? p.gpus_per_node : 0;
  }
  f.points = static_cast<int>(c.size());
  if (c.empty()) return f;
  const auto [latency, inv_bw] = solve(c, t);
  f.latency_s = latency;
  f.bandwidth_Bps = inv_bw > 0 ? 1.0 / inv_bw : kUnboundedBps;
  double log_sum = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double pred = c[i].c_latency * f.latency_s + c[i].c_inv_bw / f.bandwidth_Bps;
    // Ratio errors (2x over and 2x under both 100%), as the geometric mean counts them.
    const double log_ratio = std::abs(std::log(pred / t[i]));
    f.max_abs_rel_err = std::max(f.max_abs_rel_err, std::expm1(log_ratio));
    log_sum += log_ratio;
  }
  f.geomean_rel_err = std::exp(log_sum / f.points) - 1;
  return f;
}

// Per op: both tiers carry the op's (L, B), so a world ring costs its alpha-beta form too.
// Open MPI's algorithms: the terms and busiest-resource bytes of the schedule it runs.
Coefficients op_coefficients(const Topology& base, const FitOptions& opt, const BenchPoint& p) {
  if (opt.algo != Algo::mpi) return coefficients(base, {"intra", "inter"}, p);
  const double per_rank = p.op == CollectiveOp::allgather ? p.bytes / p.ranks : p.bytes;
  RankLayout layout{p.nodes, p.gpus_per_node};
  layout.pooled_rails = std::max(1, base.nic.rails);  // the fit's one path per node
  const ScheduleLoad load =
      schedule_load(build_schedule(p.op, Algo::mpi, p.group, layout, per_rank), layout);
  return Coefficients{load.latency_terms, load.bytes};
}

// One op's fit in segments of its sizes: piecewise between each pair of sizes, or (line) one
// line, split once at the size that halves its summed log error; none with fewer than 2
// points.
std::vector<TierFit> fit_op(const Topology& base, const std::vector<BenchPoint>& pts,
                            const FitOptions& opt, const std::string& key) {
  const auto both = [&](const BenchPoint& p) { return op_coefficients(base, opt, p); };
  const auto of_key = [&](const BenchPoint& p) {
    return op_cost_key(p.op, p.group) == key && in_range(p, opt);
  };
  TierFit one = fit_points(pts, of_key, both);
  if (one.points < 2) return {};
  std::vector<TierFit> best = {one};
  std::vector<double> sizes;
  for (const auto& p : pts)
    if (of_key(p)) sizes.push_back(p.bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (opt.mode == FitMode::piecewise && sizes.size() > 2) {
    best.clear();
    for (size_t k = 0; k + 1 < sizes.size(); ++k)
      best.push_back(fit_points(
          pts,
          [&](const BenchPoint& p) {
            return of_key(p) && (p.bytes == sizes[k] || p.bytes == sizes[k + 1]);
          },
          both));
  } else if (one.geomean_rel_err > 0.10) {
    // One split: the size that minimises the two segments' summed log error, each with at
    // least 3 sizes.
    double best_cost = std::log1p(one.geomean_rel_err) * one.points * 0.5;  // must halve it
    for (size_t k = 3; k + 3 <= sizes.size(); ++k) {
      const double cut = sizes[k - 1];
      TierFit lo = fit_points(
          pts, [&](const BenchPoint& p) { return of_key(p) && p.bytes <= cut; }, both);
      TierFit hi = fit_points(
          pts, [&](const BenchPoint& p) { return of_key(p) && p.bytes > cut; }, both);
      const double cost =
          std::log1p(lo.geomean_rel_err) * lo.points + std::log1p(hi.geomean_rel_err) * hi.points;
      if (cost < best_cost) {
        best_cost = cost;
        best = {lo, hi};
      }
    }
  }
  return best;
}

// Each point as the calibration predicts it: its op's segment, else its tier's closed form.
std::vector<FittedPoint> predict_points(const Topology& base, const std::vector<BenchPoint>& pts,
                                        const FitOptions& opt, const Calibration& cal) {
  Topology fitted = base;
  for (const auto& [tier, f] : cal.tiers) set_tier(fitted, tier, f.latency_s, f.bandwidth_Bps);
  std::vector<FittedPoint> out;
  for (const auto& p : pts) {
    const auto op = cal.ops.find(op_cost_key(p.op, p.group));
    FittedPoint fp;
    fp.point = p;
    if (op != cal.ops.end()) {
      const TierFit* seg = &op->second.back();
      for (const auto& f : op->second)
        if (p.bytes <= f.max_bytes) {
          seg = &f;
          break;
        }
      const Coefficients c = op_coefficients(base, opt, p);
      fp.predicted_s = c.c_latency * seg->latency_s + c.c_inv_bw / seg->bandwidth_Bps;
      fp.fitted = in_range(p, opt);
    } else {
      fp.predicted_s = closed_form(fitted, p);
      fp.fitted = in_tier_fit(p, opt) && cal.tiers.count(std::string(group_name(p.group))) > 0;
    }
    out.push_back(fp);
  }
  return out;
}

}  // namespace

void fit_bench(const Topology& base, const std::vector<BenchPoint>& pts, const FitOptions& opt,
               Calibration& cal, std::vector<FittedPoint>& out) {
  cal.algo = opt.algo;
  cal.tiers.clear();
  cal.ops.clear();
  cal.op_fit = opt.mode;
  for (const std::string tier : {"intra", "inter"}) {
    TierFit f = fit_points(
        pts,
        [&](const BenchPoint& p) { return group_name(p.group) == tier && in_tier_fit(p, opt); },
        [&](const BenchPoint& p) { return coefficients(base, {tier}, p); });
    if (f.points > 0) cal.tiers[tier] = f;
  }
  std::set<std::string> keys;
  for (const auto& p : pts)
    if (in_range(p, opt)) keys.insert(op_cost_key(p.op, p.group));
  for (const auto& key : keys)
    if (auto segments = fit_op(base, pts, opt, key); !segments.empty()) cal.ops[key] = segments;
  out = predict_points(base, pts, opt, cal);
}

std::map<std::string, MemoryFit> fit_memory_speeds(const std::vector<MemorySample>& samples) {
  // Per key: the bytes and seconds each sample gives it; the speed is the median of the
  // per-sample speeds, so one iteration in which a rank lost its core for a scheduler tick
  // (milliseconds in a sub-millisecond pack) does not slow the key for every iteration.
  struct Parts {
    std::vector<double> speeds;
    MemoryFit fit;
  };
  auto add = [](Parts& p, double bytes, double seconds, int ranks) {
    p.fit.bytes += bytes;
    p.fit.seconds += seconds;
    p.fit.ranks = ranks;
    ++p.fit.iterations;
    if (bytes > 0 && seconds > 0) p.speeds.push_back(bytes / seconds);
  };
  auto finish = [](std::map<std::string, Parts>& parts, std::map<std::string, MemoryFit>& out) {
    for (auto& [key, p] : parts)
      if (!p.speeds.empty()) {
        p.fit.bandwidth_Bps = median(p.speeds);
        out[key] = p.fit;
      }
  };
  auto keys_of = [](const MemorySample& s) {
    std::vector<std::string> k;
    for (const auto& [key, b] : s.bytes)
      if (b > 0) k.push_back(key);
    return k;
  };
  std::map<std::string, Parts> alone, rest;
  for (const auto& s : samples) {
    const auto keys = keys_of(s);
    if (keys.size() == 1) add(alone[keys[0]], s.bytes.at(keys[0]), s.seconds, s.ranks);
  }
  std::map<std::string, MemoryFit> out;
  finish(alone, out);
  for (const auto& s : samples) {
    const auto keys = keys_of(s);
    if (keys.size() < 2) continue;
    double left = s.seconds, unknown_bytes = 0;
    std::vector<std::string> unknown;
    for (const auto& k : keys) {
      const double b = s.bytes.at(k);
      if (out.count(k)) {
        left -= b / out[k].bandwidth_Bps;
      } else {
        unknown.push_back(k);
        unknown_bytes += b;
      }
    }
    if (unknown.empty() || left <= 0) continue;
    for (const auto& k : unknown)
      add(rest[k], s.bytes.at(k), left * s.bytes.at(k) / unknown_bytes, s.ranks);
  }
  finish(rest, out);
  return out;
}

void set_tier(Topology& t, const std::string& tier, double latency_s, double bandwidth_Bps) {
  if (tier == "intra") {
    t.intra.link = {bandwidth_Bps, latency_s};
    if (t.intra.kind == IntraKind::nvlink_pairs) {
      t.intra.links_per_pair = 1;
      t.intra.links.clear();  // the fitted link is a pair's whole path
    }
  } else {
    t.nic.link = {bandwidth_Bps, latency_s};
    t.nic.rails = 1;
    t.fabric.link.latency_s = 0;
    t.fabric.link.bandwidth_Bps = bandwidth_Bps;
  }
}

double host_share(const Calibration& c, int ranks) {
  return c.host_cores > 0 ? std::min(1.0, static_cast<double>(c.host_cores) / ranks) : 1.0;
}

double calibrated_step_overhead_s(const Calibration& c, int ranks) {
  if (!c.compute) return 0;
  return c.compute->step_overhead_s * host_share(c, c.compute->ranks) / host_share(c, ranks);
}

}  // namespace prunex::sim
