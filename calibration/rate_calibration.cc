#include "calibration/rate_calibration.h"

#include <algorithm>

#include "engine/error.h"
#include "netmodel/closed_form.h"
#include "netmodel/collectives.h"

namespace prunex::sim {

double group_latency_s(const Topology& t, Group group) {
  return group == Group::intra ? t.intra.link.latency_s : node_inter_latency_s(t);
}

namespace {

// The ring's latency steps (what a calibrated op charges its latency for) and its bandwidth
// term (the closed form with every latency 0).
int latency_steps(const Topology& t, const TargetTime& x) {
  const RankLayout layout{x.nodes, x.gpus_per_node, std::max(1, t.nic.rails),
                          t.intra.kind == IntraKind::nvlink_pairs};
  int steps = 0;
  for (const Round& r : build_schedule(x.op, Algo::ring, x.group, layout, x.bytes))
    steps += r.latency_steps;
  return steps;
}

double bandwidth_seconds(Topology t, const TargetTime& x) {
  t.intra.link.latency_s = 0;
  t.nic.link.latency_s = 0;
  t.fabric.link.latency_s = 0;
  return closed_form_seconds(t, x.nodes, x.gpus_per_node, x.op, Algo::ring, x.group,
                             static_cast<std::size_t>(x.bytes));
}

}  // namespace

Calibration calibration_from_times(const Topology& t, const std::vector<TargetTime>& targets,
                                   const std::string& input, std::vector<RateFit>* fits) {
  Calibration c;
  c.topology = t.name;
  c.inputs = {input};
  c.algo = Algo::ring;
  c.op_fit = FitMode::line;
  for (const TargetTime& x : targets) {
    const std::string key = op_cost_key(x.op, x.group);
    PRUNEX_USAGE(!c.ops.count(key), input, ": two times for ", key);
    PRUNEX_USAGE(x.bytes > 0 && x.seconds > 0, input, ": ", x.what, " needs bytes and seconds > 0");
    TierFit f;
    f.latency_s = group_latency_s(t, x.group);
    const double transfer = x.seconds - latency_steps(t, x) * f.latency_s;
    PRUNEX_USAGE(transfer > 0, input, ": ", x.what, " takes ", x.seconds,
                 " s, not more than its ring's latency steps on ", t.name);
    const double link = group_link_Bps(t, x.group, x.nodes, x.gpus_per_node);
    f.bandwidth_Bps = link * bandwidth_seconds(t, x) / transfer;
    f.points = 1;
    f.min_bytes = f.max_bytes = x.bytes;
    f.nodes = x.nodes;
    f.gpus_per_node = x.gpus_per_node;
    c.ops[key] = {f};
    if (fits != nullptr) fits->push_back({x, f, link});
  }
  return c;
}

}  // namespace prunex::sim
