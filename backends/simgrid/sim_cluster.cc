// The SimGrid engine, the platform and the flow executor behind SimCluster.
#include "backends/simgrid/sim_cluster.h"

#include <xbt/log.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "backends/simgrid/platform.h"
#include "backends/simgrid/sim_cluster_impl.h"
#include "engine/error.h"
#include "netmodel/collectives.h"
#include "netmodel/nccl_model.h"

namespace prunex::sim {

namespace {

bool engine_created = false;

constexpr std::size_t kGpusPerComputeActor = 256;

}  // namespace

SimCluster::SimCluster(const Topology& topology, const SimConfig& config)
    : impl_(std::make_unique<Impl>()) {
  PRUNEX_USAGE(known_network_models().count(config.network_model), "unknown network model '",
               config.network_model, "' (CM02, LV08, SMPI, IB)");
  PRUNEX_USAGE(config.nodes >= 1, "--nodes must be >= 1 (got ", config.nodes, ")");
  PRUNEX_USAGE(config.gpus_per_node >= 1, "--gpus-per-node must be >= 1 (got ",
               config.gpus_per_node, ")");
  PRUNEX_USAGE(config.nodes <= topology.nodes || topology.nodes <= 0, "topology ", topology.name,
               " has ", topology.nodes, " nodes, the run asks for ", config.nodes);
  PRUNEX_USAGE(config.gpus_per_node <= topology.gpus_per_node, "topology ", topology.name, " has ",
               topology.gpus_per_node, " GPUs per node, the run asks for ", config.gpus_per_node);
  if (engine_created)
    throw std::logic_error(
        "SimGrid 3.32 allows one engine per process: run each SimCluster in its own process "
        "(simulate/fork_run.h)");
  engine_created = true;
  impl_->topology = topology;
  impl_->config = config;

  xbt_log_control_set("root.thres:critical");
  std::vector<std::string> args{
      "prunex", "--log=root.thres:critical", "--cfg=network/model:" + config.network_model,
      std::string("--cfg=network/crosstraffic:") + (config.crosstraffic ? "1" : "0"),
      // RDMA fabrics are not TCP-window bound: lift CM02's gamma/(2 latency) rate cap.
      "--cfg=network/TCP-gamma:1e30",
      // Thousands of short-lived actors with shallow stacks.
      "--cfg=contexts/stack-size:256",
      // Simulated times to 1e-11 s (the default 1e-5 s would blur microsecond latencies).
      "--cfg=surf/precision:1e-11",
      // Plain max-min sharing: no RTT weighting (weight-S) penalising longer routes.
      "--cfg=network/weight-S:0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  impl_->engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  impl_->platform =
      config.fabric_routing == FabricRouting::ecmp
          ? build_ecmp_platform(topology, {config.nodes, config.gpus_per_node},
                                config.rtt_fair_sharing, config.ecmp_seed)
          : build_platform(topology, {config.nodes, config.gpus_per_node}, config.rtt_fair_sharing);
  // Degraded NIC rails: the built link (the NIC, capped by a star's port) at a fraction.
  const int rails = std::max(1, topology.nic.rails);
  for (const auto& d : config.degraded_nics) {
    PRUNEX_USAGE(d.node >= 0 && d.node < config.nodes, "degraded NIC of node ", d.node,
                 ": the run has nodes 0-", config.nodes - 1);
    PRUNEX_USAGE(d.rail >= -1 && d.rail < rails, "degraded NIC rail ", d.rail, " of node ", d.node,
                 ": the topology has rails 0-", rails - 1);
    PRUNEX_USAGE(d.fraction > 0 && d.fraction <= 1, "degraded NIC fraction must be in (0, 1] (got ",
                 d.fraction, ")");
    for (int r = 0; r < rails; ++r) {
      if (d.rail >= 0 && r != d.rail) continue;
      auto* link =
          sg4::SplitDuplexLink::by_name("n" + std::to_string(d.node) + "_nic" + std::to_string(r));
      for (auto* l : {link->get_link_up(), link->get_link_down()})
        l->set_bandwidth(l->get_bandwidth() * d.fraction);
    }
  }
}

SimCluster::~SimCluster() = default;

int SimCluster::world_size() const {
  return static_cast<int>(impl_->platform.gpus.size());
}
const SimConfig& SimCluster::config() const {
  return impl_->config;
}
const Topology& SimCluster::topology() const {
  return impl_->topology;
}

std::string SimCluster::model_description() const {
  const SimConfig& c = impl_->config;
  return c.network_model + " (crosstraffic " + (c.crosstraffic ? "on" : "off") +
         ", TCP-gamma off, " +
         (c.rtt_fair_sharing ? "RTT-fair sharing" : "max-min sharing, route latency added") +
         (c.nccl_protocols ? ", NCCL protocols by size (NCCL's latency, wire overhead)" : "") +
         (c.call_latency && !c.nccl_protocols ? ", NCCL's base latency per call" : "") +
         (c.fabric_routing == FabricRouting::ecmp
              ? ", ECMP per-flow uplinks (seed " + std::to_string(c.ecmp_seed) + ")"
              : "") +
         (c.op_costs.empty() ? "" : ", calibrated per-op costs") + ")";
}

namespace {

// The calibrated cost of op on group g for this size (nullptr: none).
const SimConfig::OpCost* fitted_cost(const SimConfig& config, const RankLayout& layout,
                                     CollectiveOp op, Group g, std::size_t bytes, bool warm) {
  const std::string key = op_cost_key(op, g);
  const auto& table =
      warm && config.op_costs_warm.count(key) ? config.op_costs_warm : config.op_costs;
  const auto costs = table.find(key);
  if (costs == table.end() || costs->second.empty()) return nullptr;
  const int n = g == Group::intra   ? layout.gpus_per_node
                : g == Group::inter ? layout.nodes
                                    : layout.world();
  const double size = static_cast<double>(bytes) * (op == CollectiveOp::allgather ? n : 1);
  for (const auto& c : costs->second)
    if (size <= c.max_bytes) return &c;
  return &costs->second.back();
}

// The calibrated cost that prices op on group g (nullptr: none): a rail communicator crosses
// the nodes as the leaders' does, the inter tier's cost (its flows still share the node's NICs
// with the other rails'). A world of one rank per node holds the ranks and links of the
// leaders' group: a world fit measured with several ranks per node prices another layout's
// rings (a 2 x 2 world's fit would cost a 2 x 1 world as 4 ranks sharing 2 nodes), so there
// the leaders' fit comes first. (A world on one node takes the intra fit already: all its
// steps are inside.)
const SimConfig::OpCost* cost_of(const SimConfig& config, const RankLayout& layout, CollectiveOp op,
                                 Group g, std::size_t bytes, bool warm) {
  if (g == Group::rail) return fitted_cost(config, layout, op, Group::inter, bytes, warm);
  const SimConfig::OpCost* c = fitted_cost(config, layout, op, g, bytes, warm);
  if (g != Group::world || c == nullptr) return c;
  const SimConfig::OpCost* leaders =
      layout.gpus_per_node == 1 && c->gpus_per_node > 1
          ? fitted_cost(config, layout, op, Group::inter, bytes, warm)
          : nullptr;
  return leaders != nullptr ? leaders : c;
}

bool crosses_nodes(const Flow& f, int gpn) {
  return f.src / gpn != f.dst / gpn;
}

}  // namespace

// A round's latency: its steps at the calibrated cost's latency, or (uncalibrated) its
// longest latency chain, or its steps at the largest route's latency (alpha); none under
// NCCL's protocols, whose latency is the collective's. A hop of NCCL's tree between nodes
// costs the ring hop's latency plus NCCL's difference (extra).
double SimCluster::round_latency(const Round& round, double alpha, const SimConfig::OpCost* cost,
                                 bool nccl_latency, int gpn) {
  if (nccl_latency) return 0;
  if (cost != nullptr) return round.latency_steps * cost->latency_s;
  const double extra = round.nccl_tree_hops ? nccl_tree_net_hop_extra_s() : 0.0;
  if (!round.latency_chains.empty()) {
    double longest = 0;
    for (const auto& chain : round.latency_chains) {
      double sum = 0;
      for (const auto& [a, b] : chain)
        sum += impl_->route_latency(a, b) + (a / gpn == b / gpn ? 0.0 : extra);
      longest = std::max(longest, sum);
    }
    return round.chain_weight * longest;
  }
  if (extra > 0) {
    // alpha is the largest route's: between nodes when any flow leaves its node.
    const bool crosses = std::any_of(round.flows.begin(), round.flows.end(),
                                     [&](const Flow& f) { return crosses_nodes(f, gpn); });
    return round.latency_steps * (alpha + (crosses ? extra : 0.0));
  }
  return round.latency_steps * alpha;
}

CollectiveResult SimCluster::run_collective(CollectiveOp op, Algo algo, Group group,
                                            std::size_t bytes, bool warm) {
  const SimConfig& config = impl_->config;
  const RankLayout layout{
      config.nodes, config.gpus_per_node, std::max(1, impl_->topology.nic.rails),
      impl_->topology.intra.kind == IntraKind::nvlink_pairs, config.pooled_rails};
  CollectiveResult result;
  result.network_model = model_description();
  if (algo == Algo::nccl)
    algo = nccl_algorithm(impl_->topology, layout.nodes, layout.gpus_per_node, op, group, bytes);
  result.algo = algo;
  const SimConfig::OpCost* cost = cost_of(config, layout, op, group, bytes, warm);
  // A world collective's steps inside the nodes (Open MPI's algorithms take some there) cost
  // what the op costs inside a node, where that was calibrated.
  const SimConfig::OpCost* intra_cost =
      group == Group::world ? cost_of(config, layout, op, Group::intra, bytes, warm) : nullptr;
  const int gpn = layout.gpus_per_node;
  const bool calibrated = cost != nullptr;
  double scale = calibrated ? cost->bytes_scale : 1.0;
  // NCCL's protocol for this size: its latency (tuning.cc's base latency and per-step
  // hardware latency of that protocol) instead of the routes', its wire overhead on every flow;
  // or, with call_latency alone, that protocol's base latency on top of the routes'.
  double overhead_s = 0;
  bool nccl_latency = false;
  if ((config.nccl_protocols || config.call_latency) && !calibrated) {
    // (A hierarchical collective on one tier is that tier's ring; over the world NCCL has none.)
    const Algo flat = algo == Algo::hierarchical && group != Group::world ? Algo::ring : algo;
    const NcclEstimate e =
        nccl_model(impl_->topology, layout.nodes, layout.gpus_per_node, op, flat, group, bytes);
    if (e.modeled && config.nccl_protocols) {
      result.protocol = nccl_proto_name(e.proto);
      overhead_s = e.latency_s;
      nccl_latency = true;
      scale = nccl_wire_factor(e.proto);
    } else if (e.modeled) {
      overhead_s = e.base_latency_s;  // the routes' latencies and plain flows otherwise
    }
  }
  for (Round round : build_schedule(op, algo, group, layout, static_cast<double>(bytes))) {
    const bool inside = calibrated && intra_cost != nullptr && !round.flows.empty() &&
                        std::none_of(round.flows.begin(), round.flows.end(),
                                     [&](const Flow& f) { return crosses_nodes(f, gpn); });
    const SimConfig::OpCost* round_cost = inside ? intra_cost : cost;
    const double round_scale = inside ? intra_cost->bytes_scale : scale;
    for (auto& f : round.flows) f.bytes *= round_scale;
    const auto timings = run_flows(round.flows, true);
    double alpha = 0, transfer = 0;
    for (const auto& t : timings) {
      alpha = std::max(alpha, t.route_latency_s);
      transfer = std::max(transfer, t.seconds - t.route_latency_s);
      result.delivered_bytes += t.delivered_bytes / round_scale;
    }
    const double seconds =
        round_latency(round, alpha, calibrated ? round_cost : nullptr, nccl_latency, gpn) +
        std::max(0.0, transfer);
    result.round_seconds.push_back(seconds);
    result.seconds += seconds;
    result.flows += round.flows.size();
  }
  if (result.flows > 0) result.seconds += overhead_s;
  return result;
}

double SimCluster::run_compute(double flops) {
  const auto ranks = run_compute_ranks(flops);
  return ranks.empty() ? 0.0 : *std::max_element(ranks.begin(), ranks.end());
}

std::vector<double> SimCluster::run_compute_ranks(double flops, double fixed_s) {
  PRUNEX_USAGE(flops >= 0, "compute step with negative flops (", flops, ")");
  PRUNEX_USAGE(impl_->topology.gpu.effective_flops() > 0, "topology ", impl_->topology.name,
               " gives no GPU speed (gpu.fp32_flops x efficiency)");
  auto& gpus = impl_->platform.gpus;
  std::vector<double> out(gpus.size(), 0.0);
  const auto& factor = impl_->config.compute_factor;
  PRUNEX_CHECK(factor.empty() || factor.size() == gpus.size(), "compute_factor has ", factor.size(),
               " entries for ", gpus.size(), " GPUs");
  // The fixed part: no shared resource, each rank's own seconds.
  const auto add_fixed = [&] {
    for (std::size_t g = 0; g < out.size(); ++g)
      out[g] += fixed_s * (factor.empty() ? 1.0 : factor[g]);
    return out;
  };
  if (flops <= 0) return add_fixed();
  const double start = sg4::Engine::get_clock();
  // A few actors start an execution on every GPU and wait for them: no actor (stack, guard
  // pages) per GPU, so the platform size is not bounded by the process's mappings; and no
  // single actor for all of them, as SimGrid 3.32 scans its actor's list of executions each
  // time one ends (the square of the GPUs per actor).
  for (std::size_t first = 0; first < gpus.size(); first += kGpusPerComputeActor) {
    const std::size_t last = std::min(gpus.size(), first + kGpusPerComputeActor);
    sg4::Actor::create("compute", gpus[first], [&gpus, &factor, &out, flops, first, last, start] {
      std::vector<sg4::ExecPtr> execs;
      execs.reserve(last - first);
      for (std::size_t g = first; g < last; ++g) {
        execs.push_back(sg4::this_actor::exec_init(flops * (factor.empty() ? 1.0 : factor[g])));
        execs.back()->set_host(gpus[g]);
        execs.back()->start();
      }
      for (std::size_t g = first; g < last; ++g) {
        execs[g - first]->wait();
        out[g] = execs[g - first]->get_finish_time() - start;
      }
    });
  }
  impl_->engine->run();
  return add_fixed();
}

double SimCluster::run_memory(double mem_bytes, const std::string& phase, const std::string& key) {
  PRUNEX_USAGE(mem_bytes >= 0, "memory step with negative bytes (", mem_bytes, ")");
  const auto& speeds = config().memory_Bps;  // the key's speed, else the phase's
  auto calibrated = key.empty() ? speeds.end() : speeds.find(key);
  if (calibrated == speeds.end()) calibrated = speeds.find(phase);
  const double bw =
      calibrated != speeds.end() ? calibrated->second : impl_->topology.gpu.mem_bandwidth_Bps;
  PRUNEX_USAGE(bw > 0, "topology ", impl_->topology.name, " gives no GPU memory bandwidth");
  const double start = sg4::Engine::get_clock();
  if (mem_bytes <= 0) return 0;
  // Every GPU streams the same bytes at the same speed (a pass over its own memory, no
  // shared resource): one actor's sleep is every GPU's.
  sg4::Actor::create("memory", impl_->platform.gpus.front(),
                     [=] { sg4::this_actor::sleep_for(mem_bytes / bw); });
  impl_->engine->run();
  return sg4::Engine::get_clock() - start;
}

}  // namespace prunex::sim
