#include "emulation/emulate_mpirun.h"

#include <thread>
#include <utility>

#include "host/process.h"

namespace prunex {

std::vector<std::string> emulated_mpirun_argv(const EmulatedCluster& cluster,
                                              const std::string& mpirun, const std::string& prunex,
                                              const std::vector<std::string>& command) {
  const EmulationSpec& spec = cluster.spec();
  std::string rails = "rail0";
  for (int r = 1; r < spec.rails; ++r) rails += ",rail" + std::to_string(r);
  // mpirun runs inside node 0 (the addresses exist only in the namespaces), with node
  // 0's hostname; the agent enters the other nodes.
  std::vector<std::string> argv = {find_system_program("ip"),
                                   "netns",
                                   "exec",
                                   cluster.netns(0),
                                   find_system_program("unshare"),
                                   "--uts",
                                   "sh",
                                   "-c",
                                   "hostname " + cluster.hostname(0) + " && export NCCL_HOSTID=" +
                                       cluster.nccl_host_id(0) + " && exec \"$@\"",
                                   "sh",
                                   mpirun};
  const std::vector<std::pair<std::string, std::string>> mpirun_options = {
      {"-np", std::to_string(spec.nodes * spec.gpus_per_node)},
      {"--hostfile", cluster.hostfile_path()},
      {"--bind-to", "none"},
      {"-x", "PRUNEX_EMULATION"},
      {"-x", "OMPI_ALLOW_RUN_AS_ROOT"},
      {"-x", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"},
      // NCCL's socket transport (train --backend nccl across emulated nodes) on the shaped
      // links too: interfaces whose names begin with "rail".
      {"-x", "NCCL_SOCKET_IFNAME=rail"}};
  const std::vector<std::pair<std::string, std::string>> mca = {
      {"plm_rsh_agent", cluster.agent_path()},
      {"plm_rsh_no_tree_spawn", "1"},
      {"oob_tcp_if_include", "rail0"},
      {"btl", "self,vader,tcp"},
      {"btl_tcp_if_include", rails},
      // Send/receive semantics only: the TCP BTL's emulated RDMA put queues its handshake
      // behind bulk data on the one socket per peer, which serializes the two directions
      // of an exchange (16 MiB all-gather on 2 x 1 at 100 Mbit/s: 1.40 s with put, 0.74 s
      // without).
      {"btl_tcp_flags", "send,inplace,need-ack,need-csum"}};
  for (const auto& [k, v] : mpirun_options) argv.insert(argv.end(), {k, v});
  argv.push_back("--oversubscribe");
  for (const auto& [k, v] : mca) argv.insert(argv.end(), {"--mca", k, v});
  // The emulated nodes share this host's cores. Open MPI sees P slots per node, so it
  // would let waiting ranks spin without yielding (it yields only on nodes it knows are
  // oversubscribed): a rank waiting for a descheduled peer then burns its whole time
  // slice (a 4-rank consensus collective on 2 cores took 4-16 ms instead of 0.1).
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores > 0 && static_cast<unsigned>(spec.nodes * spec.gpus_per_node) > cores)
    argv.insert(argv.end(), {"--mca", "mpi_yield_when_idle", "1"});
  if (!prunex.empty()) argv.push_back(prunex);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

nlohmann::json emulation_record(const EmulatedCluster& cluster) {
  const EmulationSpec& s = cluster.spec();
  nlohmann::json addresses = nlohmann::json::array();
  for (int k = 0; k < s.nodes; ++k) addresses.push_back(cluster.address(k, 0));
  return {{"topology", s.topology},
          {"nodes", s.nodes},
          {"gpus_per_node", s.gpus_per_node},
          {"rails", s.rails},
          {"rate_mbits", s.rate_bps / 1e6},
          {"one_way_latency_us", s.one_way_s * 1e6},
          {"latency_emulated", cluster.latency_emulated()},
          {"delay", cluster.delay_method()},
          {"slowdown", s.slowdown},
          {"fabric", s.fabric},
          {"addresses", addresses},
          {"interface", "rail0"}};
}

}  // namespace prunex
