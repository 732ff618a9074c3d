// `prunex emulate`: runs a prunex command under mpirun on an emulated cluster on this host
// (apps/emulate_net.h): M network namespaces as nodes, P ranks each, shaped veth links as NIC
// rails, torn down afterwards (also on failure, SIGINT and SIGTERM).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "apps/cli.h"
#include "apps/emulate_net.h"
#include "apps/subprocess.h"
#include "engine/error.h"
#include "records/run_record.h"
#include "topologies/topology_io.h"

namespace prunex::cli {
namespace {

volatile sig_atomic_t g_signal = 0;

void on_signal(int sig) {
  g_signal = sig;
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t end = p.find(':', start);
    const std::string dir =
        p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string full = (dir.empty() ? "." : dir) + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

// Runs argv in a child; while it runs, SIGINT/SIGTERM to us are passed on to it (SIGTERM,
// then SIGKILL after 10 s). Returns its exit status (128 + signal if killed).
int run_forwarding_signals(const std::vector<std::string>& argv) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    std::vector<char*> c;
    for (const auto& s : argv) c.push_back(const_cast<char*>(s.c_str()));
    c.push_back(nullptr);
    execv(argv[0].c_str(), c.data());
    std::fprintf(stderr, "cannot run %s\n", argv[0].c_str());
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  bool forwarded = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (g_signal != 0 && !forwarded) {
      kill(-pid, SIGTERM);
      forwarded = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    }
    if (forwarded && std::chrono::steady_clock::now() > deadline) kill(-pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int run_emulate(const Args& args) {
  if (args.flag("cleanup")) {
    PRUNEX_USAGE(args.trailing().empty() && !args.has("topology"),
                 "--cleanup takes no topology and no command");
    check_emulation_possible();
    const int n = cleanup_stale_emulations();
    std::printf("emulate: removed %d leftover namespaces and links\n", n);
    return 0;
  }
  PRUNEX_USAGE(args.has("topology"), "--topology NAME|FILE is required (prunex topology list)");
  const Topology t = load_topology(*args.get("topology"));
  const int nodes = static_cast<int>(args.get_int("nodes", 2, 1, 1 << 20));
  const int gpn = static_cast<int>(args.get_int("gpus-per-node", 1, 1, 1 << 20));
  const EmulationSpec spec = emulation_spec(t, nodes, gpn, args.get_double("slowdown", 1));
  const auto& inner = args.trailing();
  const std::string topology_out = args.get_or("topology-out", "");
  PRUNEX_USAGE(topology_out.empty() || !std::filesystem::is_directory(topology_out),
               "--topology-out ", topology_out, " is a folder; name the file to write");
  PRUNEX_USAGE(!inner.empty(),
               "missing the command to run: prunex emulate [options] -- COMMAND ...");
  bool known = false;
  for (const auto& c : registry()) known = known || c.name == inner[0];
  PRUNEX_USAGE(known && inner[0] != "emulate" && inner[0] != "emulate-probe", "'", inner[0],
               "' is not a prunex command to run on the emulated cluster (train, bench, ...)");
  const std::string mpirun = find_in_path("mpirun");
  PRUNEX_USAGE(!mpirun.empty(), "mpirun not found (scripts/setup.sh installs Open MPI)");
  check_emulation_possible();

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  EmulatedCluster cluster(spec);
  if (args.flag("keep-up")) cluster.keep();
  std::fprintf(stderr,
               "emulate: %d nodes x %d ranks of %s, %d rail%s per node at %.4g Mbit/s and %.4g us "
               "one way (slowdown %g; %s); names %s*\n",
               spec.nodes, spec.gpus_per_node, spec.topology.c_str(), spec.rails,
               spec.rails > 1 ? "s" : "", spec.rate_bps / 1e6, spec.one_way_s * 1e6, spec.slowdown,
               spec.fabric.c_str(), cluster.prefix().c_str());
  int rc = 1;
  try {
    cluster.build();
    if (g_signal == 0) cluster.check_rates();
    if (g_signal == 0) {
      const nlohmann::json record = {{"topology", spec.topology},
                                     {"nodes", spec.nodes},
                                     {"gpus_per_node", spec.gpus_per_node},
                                     {"rails", spec.rails},
                                     {"rate_mbits", spec.rate_bps / 1e6},
                                     {"one_way_latency_us", spec.one_way_s * 1e6},
                                     {"latency_emulated", cluster.latency_emulated()},
                                     {"delay", cluster.delay_method()},
                                     {"slowdown", spec.slowdown},
                                     {"fabric", spec.fabric}};
      setenv("PRUNEX_EMULATION", record.dump().c_str(), 1);
      if (!topology_out.empty()) {
        write_file_atomic(
            topology_out,
            topology_to_json(emulated_topology(spec, cluster.latency_emulated())).dump(2) + "\n");
        std::fprintf(stderr, "emulate: wrote the emulated cluster's topology to %s\n",
                     topology_out.c_str());
      }
      if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
      }
      std::string rails = "rail0";
      for (int r = 1; r < spec.rails; ++r) rails += ",rail" + std::to_string(r);
      // mpirun runs inside node 0 (the addresses exist only in the namespaces), with node
      // 0's hostname; the agent enters the other nodes.
      std::vector<std::string> argv = {system_tool("ip"),
                                       "netns",
                                       "exec",
                                       cluster.netns(0),
                                       system_tool("unshare"),
                                       "--uts",
                                       "sh",
                                       "-c",
                                       "hostname " + cluster.hostname(0) + " && exec \"$@\"",
                                       "sh",
                                       mpirun};
      const std::vector<std::pair<std::string, std::string>> mpirun_options = {
          {"-np", std::to_string(spec.nodes * spec.gpus_per_node)},
          {"--hostfile", cluster.hostfile_path()},
          {"--bind-to", "none"},
          {"-x", "PRUNEX_EMULATION"},
          {"-x", "OMPI_ALLOW_RUN_AS_ROOT"},
          {"-x", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"}};
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
      argv.push_back(self_executable());
      argv.insert(argv.end(), inner.begin(), inner.end());
      rc = run_forwarding_signals(argv);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prunex emulate: error: %s\n", e.what());
    rc = 1;
  }
  if (args.flag("keep-up")) {
    std::fprintf(stderr,
                 "emulate: kept up (--keep-up): namespaces %s0..%d; remove with prunex emulate "
                 "--cleanup once this process has ended%s\n",
                 (cluster.prefix() + "n").c_str(), spec.nodes - 1,
                 cluster.delay_method() == "user-space switch"
                     ? " (the links carry nothing from now: their switch was this process)"
                     : "");
  } else {
    cluster.teardown();
  }
  if (g_signal != 0) return 128 + g_signal;
  return rc;
}

PRUNEX_REGISTER_COMMAND(Command{
    "emulate",
    "run a prunex command on an emulated multi-node cluster on this host (netns + tc)",
    "prunex emulate --topology NAME|FILE --nodes M --gpus-per-node P [--slowdown X] "
    "[--topology-out FILE] [--keep-up] -- COMMAND ARGS...  |  prunex emulate --cleanup",
    "Builds M nodes as Linux network namespaces (each with its own hostname), gives each\n"
    "node the topology's NIC rails as veth links into one bridge per rail (a star), shapes\n"
    "every link with tc to nic.bandwidth_gbits and the latency of one hop (nic.latency_us +\n"
    "fabric.latency_us: netem, or a switch in user space where the kernel has no netem),\n"
    "checks each link's rate with a short TCP stream\n"
    "(within 10%, or it stops), then runs `prunex COMMAND ARGS...` as M x P MPI ranks with\n"
    "Open MPI: shared memory inside a node, TCP over the rails between nodes. Everything is\n"
    "removed afterwards, also on failure and SIGINT/SIGTERM. --slowdown X divides every\n"
    "bandwidth and multiplies every latency by X, so CPU ranks see the compute-to-\n"
    "communication ratio of the modeled GPUs; the emulation is recorded in metrics.json\n"
    "(config.emulation). Addresses: 198.18.R.(K+1) for node K on rail R, inside the\n"
    "namespaces only. Needs root or CAP_NET_ADMIN. --topology-out writes the cluster as\n"
    "it was built (rails, rate, the latency the kernel could add) as a topology file, the\n"
    "input `prunex calibrate --links relative` and `prunex simulate` take to model it.\n\n"
    "examples:\n"
    "  prunex emulate --topology ethernet-100m --nodes 2 --gpus-per-node 1 -- \\\n"
    "      bench --backend mpi --op allreduce --group world -b 16M -e 16M -n 3 -w 1\n"
    "  prunex emulate --topology puhti --nodes 2 --gpus-per-node 2 --slowdown 100 -- \\\n"
    "      train --dataset fashion-mnist --model small_cnn --strategy hsadmm --out out/emu\n"
    "  prunex emulate --cleanup",
    {
        {"topology", "NAME|FILE", "cluster preset or topology file (its NICs and fabric)", ""},
        {"nodes", "M", "emulated nodes (at most 250)", "2"},
        {"gpus-per-node", "P", "MPI ranks per node", "1"},
        {"slowdown", "X", "divide bandwidths and multiply latencies by X", "1"},
        {"topology-out", "FILE",
         "also write the emulated cluster as a topology file (for calibrate and simulate)", ""},
        {"keep-up", "", "leave the cluster up after the command (remove with --cleanup)", ""},
        {"cleanup", "", "remove what killed emulations left behind, then exit", ""},
    },
    run_emulate,
    "",
    true});

}  // namespace
}  // namespace prunex::cli
