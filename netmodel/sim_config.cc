#include "netmodel/sim_config.h"

#include "engine/error.h"

namespace prunex::sim {

const std::set<std::string>& known_network_models() {
  static const std::set<std::string> models{"CM02", "LV08", "SMPI", "IB"};
  return models;
}

FabricRouting parse_fabric_routing(const std::string& name) {
  if (name == "pooled") return FabricRouting::pooled;
  if (name == "ecmp") return FabricRouting::ecmp;
  throw UsageError("unknown fabric routing '" + name + "' (pooled, ecmp)");
}

const char* fabric_routing_name(FabricRouting r) {
  return r == FabricRouting::ecmp ? "ecmp" : "pooled";
}

Algo parse_algo(const std::string& name) {
  if (name == "ring") return Algo::ring;
  if (name == "tree") return Algo::tree;
  if (name == "hierarchical") return Algo::hierarchical;
  if (name == "mpi") return Algo::mpi;
  if (name == "nccl") return Algo::nccl;
  throw UsageError("unknown algorithm '" + name + "' (ring, tree, hierarchical, mpi, nccl)");
}

bool algo_runs(Algo a, CollectiveOp op) {
  return !(a == Algo::tree && op == CollectiveOp::allgather);
}

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::ring:
      return "ring";
    case Algo::tree:
      return "tree";
    case Algo::hierarchical:
      return "hierarchical";
    case Algo::mpi:
      return "mpi";
    case Algo::nccl:
      return "nccl";
  }
  return "?";
}

CollectiveOp parse_op(const std::string& name) {
  for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::broadcast, CollectiveOp::allgather,
                          CollectiveOp::alltoall})
    if (name == collective_op_name(op)) return op;
  throw UsageError("collective '" + name +
                   "' is not modeled (allreduce, broadcast, allgather or alltoall)");
}

std::string op_cost_key(const std::string& op, const std::string& group) {
  return op + "/" + group;
}

std::string op_cost_key(CollectiveOp op, Group group) {
  return op_cost_key(std::string(collective_op_name(op)), std::string(group_name(group)));
}

void check_fabric_routing(const Topology& t, FabricRouting routing) {
  PRUNEX_USAGE(routing == FabricRouting::pooled ||
                   (t.fabric.kind == FabricKind::fat_tree && t.fabric.levels >= 2),
               "--fabric-routing ecmp needs a fat tree of 2 or more levels (topology ", t.name,
               " has ", t.fabric.kind == FabricKind::fat_tree ? "one level" : "no fat tree", ")");
}

}  // namespace prunex::sim
