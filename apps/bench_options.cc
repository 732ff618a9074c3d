#include "apps/bench_options.h"

#include <climits>
#include <cstdint>

#include "apps/platform_options.h"
#include "calibration/calibration.h"
#include "engine/error.h"
#include "engine/text_parse.h"
#include "records/bench_rows.h"
#include "settings/run_fields.h"
#include "topologies/topology_io.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {
namespace {

// --group: world, intra, inter or all (every one of them).
std::vector<Group> parse_groups(const Args& args) {
  const std::string group = args.get_or("group", "all");  // one of them (cmd_bench.cc)
  if (group == "all") return {Group::world, Group::intra, Group::inter};
  for (Group g : {Group::world, Group::intra, Group::inter})
    if (group == group_name(g)) return {g};
  PRUNEX_CHECK(false, "--group ", group, " passed the option's check");
  return {};
}

// -b MIN -e MAX -f FACTOR: the sizes of nccl-tests' sweep.
std::vector<std::size_t> parse_sizes(const Args& args) {
  return bench_sizes(args.get_size("b", 8), args.get_size("e", 64 << 20), args.get_double("f", 2));
}

}  // namespace

CollectiveBenchConfig parse_collective_bench(const Args& args, const std::string& backend) {
  CollectiveBenchConfig c;
  c.backend = backend;
  const std::string op = args.get_or("op", "allreduce");
  if (op == "all") {
    c.ops = {CollectiveOp::allreduce, CollectiveOp::broadcast, CollectiveOp::allgather};
  } else {
    for (CollectiveOp o :
         {CollectiveOp::allreduce, CollectiveOp::broadcast, CollectiveOp::allgather})
      if (op == collective_op_name(o)) c.ops = {o};
  }
  PRUNEX_USAGE(!c.ops.empty(), "--op ", op,
               " is not one of allreduce, broadcast, allgather, all (--backend ", backend, ")");
  c.groups = parse_groups(args);
  c.sizes = parse_sizes(args);
  if (args.has("gpus-per-node")) {
    c.gpus_per_node = static_cast<int>(args.get_int("gpus-per-node", 0));
  }
  c.iters = static_cast<int>(args.get_int("n", 20));  // ranges: the declarations (cmd_bench.cc)
  c.warmup = static_cast<int>(args.get_int("w", 5));
  c.json = args.get_or("json", "");
  c.sync = args.flag("sync");
  c.median = args.get_or("stat", "mean") == "median";
  c.busy_us = args.get_double("busy-us", 0);
  c.evict = args.get_size("evict", std::size_t(16) << 20);
  PRUNEX_USAGE(c.busy_us > 0 || !args.has("evict"), "--evict needs --busy-us");
  return c;
}

ModelBenchConfig parse_model_bench(const Args& args) {
  const std::string model = args.get_or("model", "resnet152");
  const long classes = args.get_int("classes", 10);
  ModelBenchConfig out;
  out.iters = args.get_int("n", 20);
  out.warmup = args.get_int("w", 5);
  const SparsityKinds kinds = parse_sparsity_kinds(args.get_or("sparsity", "channel"));
  const KeepRate keep = KeepRate::parse(args.get_or("keep", "0.5"));
  out.layout = make_layout(model, static_cast<int>(classes));
  out.spec = SparsitySpec::build(out.layout, kinds, keep);
  out.json = args.get_or("json", "");
  return out;
}

SimBench parse_sim_bench(const Args& args) {
  SimBench b;
  PRUNEX_USAGE(args.has("topology"), "--backend sim needs --topology NAME|FILE");
  b.topology = load_topology(*args.get("topology"));
  const long nodes = args.get_int("nodes", b.topology.nodes);
  const long gpus = args.get_int("gpus-per-node", b.topology.gpus_per_node);
  PRUNEX_USAGE(nodes >= 1 && nodes <= 1 << 20, "--nodes must be in [1, 1048576], got ", nodes);
  PRUNEX_USAGE(gpus >= 1 && gpus <= b.topology.gpus_per_node, "--gpus-per-node must be in [1, ",
               b.topology.gpus_per_node, "] for topology ", b.topology.name, ", got ", gpus);
  if (nodes > b.topology.nodes) {  // what-if scale-out of the same cluster
    b.topology = scale_to_nodes(b.topology, static_cast<int>(nodes));
    b.scaled = true;
  }
  b.config.nodes = static_cast<int>(nodes);
  b.config.gpus_per_node = static_cast<int>(gpus);
  sim::PlatformSettings platform;
  read_platform(args, platform);
  b.topology = apply_link_what_if(b.topology, platform.link_what_if());
  b.stated = b.topology;
  if (platform.achieved_bandwidth) b.topology = achieved_bandwidths(b.topology);
  b.config.plan_algo = platform.algo;  // a calibration runs the algorithm its fits assume
  if (!platform.calibration.empty())
    sim::apply_calibration_file(platform.calibration, b.topology, b.config);
  b.config.network_model = platform.network_model;
  b.config.fabric_routing = platform.fabric_routing;
  b.config.ecmp_seed = static_cast<std::uint64_t>(platform.ecmp_seed);
  sim::check_fabric_routing(b.topology, b.config.fabric_routing);
  b.config.nccl_protocols = platform.nccl_protocols;
  b.config.call_latency = platform.call_latency;
  const std::string op = args.get_or("op", "allreduce");
  if (op == "iteration")
    b.ops = {};
  else if (op == "all")
    b.ops = {CollectiveOp::allreduce, CollectiveOp::broadcast, CollectiveOp::allgather};
  else
    b.ops = {sim::parse_op(op)};
  for (CollectiveOp o : b.ops)
    PRUNEX_USAGE(sim::algo_runs(b.config.plan_algo, o),
                 "allgather has no tree algorithm (use --algo ring or hierarchical)");
  b.groups = parse_groups(args);
  b.sizes = parse_sizes(args);
  b.json = args.get_or("json", "");
  b.nccl_model = args.get_or("compare", "") == "nccl-model";
  b.proto = sim::parse_nccl_proto(args.get_or("protocol", "auto"));
  PRUNEX_USAGE(b.nccl_model || !args.has("protocol"), "--protocol needs --compare nccl-model");
  if (b.ops.empty()) {  // --op iteration
    b.probe.bytes = static_cast<double>(args.get_size("e", 64 << 20));
    b.probe.keep = parse_double(args.get_or("keep", "0.5"), "--keep");
    b.probe.flops = args.get_double("flops", 0);
    PRUNEX_USAGE(b.probe.keep > 0 && b.probe.keep <= 1, "--keep must be in (0, 1], got ",
                 b.probe.keep);
    PRUNEX_USAGE(b.probe.flops >= 0, "--flops must be >= 0, got ", b.probe.flops);
    b.probe.strategy = parse_strategy(args.get_or("strategy", "hsadmm"));
  }
  return b;
}

}  // namespace prunex::cli
