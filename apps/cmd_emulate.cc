// `prunex emulate`: runs a prunex command under mpirun on an emulated cluster on this host
// (emulation/emulate_net.h): M network namespaces as nodes, P ranks each, shaped veth links as NIC
// rails, torn down afterwards (also on failure, SIGINT and SIGTERM).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <climits>
#include <limits>

#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "apps/cli.h"
#include "emulation/emulate_mpirun.h"
#include "engine/error.h"
#include "host/process.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "topologies/topology_io.h"

namespace prunex::cli {
namespace {

volatile sig_atomic_t g_signal = 0;

void on_signal(int sig) {
  g_signal = sig;
}

int cleanup(const Args& args) {
  for (const char* o :
       {"topology", "nodes", "gpus-per-node", "slowdown", "topology-out", "program"})
    PRUNEX_USAGE(!args.has(o), "--cleanup takes no --", o);
  PRUNEX_USAGE(args.trailing().empty(), "--cleanup takes no command");
  check_emulation_possible();
  const int n = cleanup_stale_emulations();
  fmt::print("emulate: removed {} leftover namespaces and links\n", n);
  return 0;
}

// The command to run on every rank, checked before anything is built: a program (--program)
// that can be run, or a prunex command whose options read as that command reads them (a
// mistyped model or strategy is its one line, not a failure on every emulated rank).
void check_inner_command(const std::vector<std::string>& inner, bool program) {
  PRUNEX_USAGE(!inner.empty(),
               "missing the command to run: prunex emulate [options] -- COMMAND ...");
  if (program) {
    const std::string& name = inner[0];
    const bool runnable =
        name.find('/') != std::string::npos
            ? access(name.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(name)
            : !find_program(name).empty();
    PRUNEX_USAGE(runnable, "--program: '", name,
                 "' is not a program on PATH or a file that can be run");
    return;
  }
  bool known = false;
  for (const auto& c : registry()) known = known || c.name == inner[0];
  PRUNEX_USAGE(known && inner[0] != "emulate" && inner[0] != "emulate-probe", "'", inner[0],
               "' is not a prunex command to run on the emulated cluster (train, bench, ...; "
               "--program runs a program of its own)");
  // (Its --help is its own: every rank prints it.)
  try {
    if (std::find(inner.begin(), inner.end(), "--help") == inner.end() &&
        std::find(inner.begin(), inner.end(), "-h") == inner.end()) {
      const CommandLine line = parse_command_line(inner);
      if (line.command->check) line.command->check(line.args);
    }
  } catch (const UsageError& e) {
    throw UsageError("the command to run: " + std::string(e.what()));
  }
}

void print_cluster(const EmulationSpec& spec, const EmulatedCluster& cluster) {
  fmt::print(
      stderr,
      "emulate: {} nodes x {} ranks of {}, {} rail{} per node at {:.4g} Mbit/s and {} one way "
      "(slowdown {:g}; {}); names {}*\n",
      spec.nodes, spec.gpus_per_node, spec.topology, spec.rails, spec.rails > 1 ? "s" : "",
      spec.rate_bps / 1e6,
      spec.one_way_s >= 1e-3 ? fmt::format("{:.4g} ms", spec.one_way_s * 1e3)
                             : fmt::format("{:.4g} us", spec.one_way_s * 1e6),
      spec.slowdown, spec.fabric, cluster.prefix());
}

// On the built cluster: the record for the ranks, the emulated topology (--topology-out),
// then mpirun across the namespaces; its exit status.
int run_on_cluster(const EmulatedCluster& cluster, const EmulationSpec& spec,
                   const std::string& topology_out, const std::string& mpirun,
                   const std::vector<std::string>& inner, bool program) {
  const nlohmann::json record = emulation_record(cluster);
  setenv("PRUNEX_EMULATION", record.dump().c_str(), 1);
  if (!topology_out.empty()) {
    write_file_atomic(
        topology_out,
        topology_to_json(emulated_topology(spec, cluster.latency_emulated())).dump(2) + "\n");
    fmt::print(stderr, "emulate: wrote the emulated cluster's topology to {}\n", topology_out);
  }
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  SpawnOptions options;
  options.own_group = true;
  options.default_signals = true;
  return wait_process_forwarding(
      spawn_process(
          emulated_mpirun_argv(cluster, mpirun, program ? std::string() : self_executable(), inner),
          options),
      g_signal);
}

void keep_or_teardown(const Args& args, EmulatedCluster& cluster, const EmulationSpec& spec) {
  if (!args.flag("keep-up")) {
    cluster.teardown();
    return;
  }
  fmt::print(stderr,
             "emulate: kept up (--keep-up): namespaces {}0..{}; remove with prunex emulate "
             "--cleanup once this process has ended{}\n",
             (cluster.prefix() + "n"), spec.nodes - 1,
             cluster.delay_method() == "user-space switch"
                 ? " (the links carry nothing from now: their switch was this process)"
                 : "");
}

int run_emulate(const Args& args) {
  if (args.flag("cleanup")) return cleanup(args);
  PRUNEX_USAGE(args.has("topology"), "--topology NAME|FILE is required (prunex topology list)");
  const Topology t = load_topology(*args.get("topology"));
  const int nodes = static_cast<int>(args.get_int("nodes", 2, 1, 250));
  const int gpn = static_cast<int>(args.get_int("gpus-per-node", 1, 1, 1 << 20));
  const EmulationSpec spec = emulation_spec(t, nodes, gpn, args.get_double("slowdown", 1));
  const auto& inner = args.trailing();
  const std::string topology_out = args.get_or("topology-out", "");
  std::optional<OutputFile> topology_file;  // checked before anything is built
  if (!topology_out.empty()) topology_file.emplace(topology_out, "--topology-out");
  const bool program = args.flag("program");
  check_inner_command(inner, program);
  const std::string mpirun = find_program("mpirun");
  PRUNEX_USAGE(!mpirun.empty(), "mpirun not found (scripts/setup.sh installs Open MPI)");
  check_emulation_possible();

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  EmulatedCluster cluster(spec);
  if (args.flag("keep-up")) cluster.keep();
  print_cluster(spec, cluster);
  int rc = 1;
  try {
    cluster.build();
    if (g_signal == 0) cluster.check_rates();
    if (g_signal == 0) rc = run_on_cluster(cluster, spec, topology_out, mpirun, inner, program);
  } catch (const std::exception& e) {
    fmt::print(stderr, "prunex emulate: error: {}\n", e.what());
    rc = 1;
  }
  keep_or_teardown(args, cluster, spec);
  if (g_signal != 0) return 128 + g_signal;
  return rc;
}

PRUNEX_REGISTER_COMMAND(Command{
    "emulate",
    "run a prunex command on an emulated multi-node cluster on this host (netns + tc)",
    "prunex emulate --topology NAME|FILE --nodes M --gpus-per-node P [--slowdown X] "
    "[--topology-out FILE] [--keep-up] [--program] -- COMMAND ARGS...  |  prunex emulate "
    "--cleanup",
    "Builds M nodes as Linux network namespaces (each with its own hostname), gives each\n"
    "node the topology's NIC rails as veth links into one bridge per rail (a star), shapes\n"
    "every link with tc to nic.bandwidth_gbits and the latency of one hop (nic.latency_us +\n"
    "fabric.latency_us: netem, or a switch in user space where the kernel has no netem),\n"
    "checks each link with a short TCP stream (the best of three probes within 10% of the\n"
    "TCP payload rate the shaping sets: 95.6% of the rate with 1500-byte frames, 99.3% with\n"
    "9000; or it stops), then runs `prunex COMMAND ARGS...` as M x P MPI ranks with Open\n"
    "MPI: shared memory inside a node, TCP over the rails between nodes. Everything is\n"
    "removed afterwards, also on failure and SIGINT/SIGTERM. --slowdown X divides every\n"
    "bandwidth and multiplies every latency by X, so CPU ranks see the compute-to-\n"
    "communication ratio of the modeled GPUs; the emulation is recorded in metrics.json\n"
    "(config.emulation). Addresses: 198.18.R.(K+1) for node K on rail R, inside the\n"
    "namespaces only. Needs root or CAP_NET_ADMIN. --topology-out writes the cluster as\n"
    "it was built (rails, rate, the latency the kernel could add) as a topology file, the\n"
    "input `prunex calibrate --links relative` and `prunex simulate` take to model it.\n"
    "--program runs COMMAND as a program of its own in place of a prunex subcommand (e.g.\n"
    "python3 scripts/studies/pytorch_ddp.py): each rank gets Open MPI's OMPI_COMM_WORLD_* "
    "variables\n"
    "and PRUNEX_EMULATION, the JSON record above with the nodes' rail-0 addresses\n"
    "(addresses) and that interface's name (interface).\n\n"
    "examples:\n"
    "  prunex emulate --topology ethernet-100m --nodes 2 --gpus-per-node 1 -- \\\n"
    "      bench --backend mpi --op allreduce --group world -b 16M -e 16M -n 3 -w 1\n"
    "  prunex emulate --topology puhti --nodes 2 --gpus-per-node 2 --slowdown 100 -- \\\n"
    "      train --dataset fashion-mnist --model small_cnn --strategy hsadmm --out out/emu\n"
    "  prunex emulate --topology puhti --nodes 4 --slowdown 5000 --program -- \\\n"
    "      python3 scripts/studies/pytorch_ddp.py --train-samples 8000 --epochs 1\n"
    "  prunex emulate --cleanup",
    {
        {"topology", "NAME|FILE", "cluster preset or topology file (its NICs and fabric)", ""},
        integer_option("nodes", "M", "emulated nodes (at most 250: one /24 per rail)", "2", 1, 250),
        integer_option("gpus-per-node", "P", "MPI ranks per node", "1", 1, 1 << 20),
        [] {
          Option o = real_option("slowdown", "X", "divide bandwidths and multiply latencies by X",
                                 "1", 0, std::numeric_limits<double>::max());
          o.open_low = true;  // (0, max]: 0 would make every link infinitely slow
          return o;
        }(),
        {"topology-out", "FILE",
         "also write the emulated cluster as a topology file (for calibrate and simulate)", ""},
        {"keep-up", "", "leave the cluster up after the command (remove with --cleanup)", ""},
        {"program", "", "COMMAND is a program of its own, not a prunex subcommand", ""},
        {"cleanup", "", "remove what killed emulations left behind, then exit", ""},
    },
    run_emulate,
    "",
    true});

}  // namespace
}  // namespace prunex::cli
