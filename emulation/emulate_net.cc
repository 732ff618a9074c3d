#include "emulation/emulate_net.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "emulation/emulate_delay.h"
#include "engine/error.h"
#include "host/process.h"

namespace prunex {

namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv (no shell); on failure throws with the command and the last line it printed.
void run_checked(const std::vector<std::string>& argv, const std::string& log) {
  const int rc = run_subprocess(argv, log);
  if (rc == 0) return;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::string out = read_text(log);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  const auto nl = out.rfind('\n');
  throw std::runtime_error("'" + cmd + "' failed (exit " + std::to_string(rc) +
                           "): " + (nl == std::string::npos ? out : out.substr(nl + 1)));
}

int run_quiet(const std::vector<std::string>& argv) {
  try {
    return run_subprocess(argv, "/dev/null");
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

namespace {

bool has_net_admin() {
  if (geteuid() == 0) return true;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) {
      const unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      return (caps >> 12) & 1ULL;  // CAP_NET_ADMIN
    }
  return false;
}

std::string fmt_num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

}  // namespace

void check_emulation_possible() {
  PRUNEX_USAGE(has_net_admin(),
               "prunex emulate needs root or CAP_NET_ADMIN (it creates network namespaces, veth "
               "links and tc shaping)");
  for (const char* t : {"ip", "tc", "unshare"})
    PRUNEX_USAGE(!find_system_program(t).empty(), "prunex emulate needs '", t,
                 "' (iproute2, util-linux: scripts/setup.sh installs them)");
}

EmulatedCluster::EmulatedCluster(EmulationSpec spec) : spec_(std::move(spec)) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "pxe%06x", static_cast<unsigned>(getpid()) & 0xffffffu);
  prefix_ = buf;
}

EmulatedCluster::~EmulatedCluster() {
  if (!keep_) teardown();
}

std::string EmulatedCluster::netns(int node) const {
  return prefix_ + "n" + std::to_string(node);
}

std::string EmulatedCluster::hostname(int node) const {
  return "node" + std::to_string(node);
}

std::string EmulatedCluster::address(int node, int rail) const {
  return "198.18." + std::to_string(rail) + "." + std::to_string(node + 1);
}

void EmulatedCluster::build() {
  char tmpl[] = "/tmp/prunex-emulate-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  workdir_ = tmpl;
  const std::string log = workdir_ + "/ip.log";
  const std::string ip = find_system_program("ip"), tc = find_system_program("tc");
  const std::string rate = fmt_num(spec_.rate_bps) + "bit";
  // Bucket: two frames (and 100 bytes), or 50 us at the rate where that is more (fast links,
  // so the shaper need not wake per frame). A real link sends nothing faster than its rate;
  // the bucket lets up to that much pass at veth speed after a pause. 64 KiB (before
  // 2026-11-25) were 105 ms of credit at 5 Mbit/s: 4 KiB all-reduces took 30 us, not 7 ms;
  // 1 ms at the rate made the free bytes depend on the rate (6.25 KB at 50 Mbit/s, 1.6 KB at
  // 5), so a calibration at one rate did not carry to another. tbf splits GSO packets larger
  // than the bucket into segments (tbf_segment).
  const int mtu = emulated_link_mtu(spec_.rate_bps);
  const std::string burst = fmt_num(std::max(2.0 * mtu + 100, spec_.rate_bps / 8 * 50e-6));
  const double delay_us = spec_.one_way_s / 2 * 1e6;  // half on each end of a link
  bool netem = delay_us > 0;
  auto shape = [&](const std::vector<std::string>& tc_dev) {
    std::vector<std::string> a = tc_dev;
    a.insert(a.end(),
             {"root", "handle", "1:", "tbf", "rate", rate, "burst", burst, "latency", "200ms"});
    run_checked(a, log);
    if (!netem) return;
    std::vector<std::string> b = tc_dev;
    b.insert(b.end(), {"parent", "1:1", "handle", "10:", "netem", "delay", fmt_num(delay_us) + "us",
                       "limit", "100000"});
    // Kernels without the netem qdisc (sch_netem): the switch in user space delays instead.
    if (run_subprocess(b, log) != 0) {
      if (read_text(log).find("unknown") == std::string::npos) run_checked(b, log);
      netem = false;
    }
  };
  std::vector<std::vector<std::string>> host_ends(spec_.rails);
  for (int k = 0; k < spec_.nodes; ++k) {
    const std::string ns = netns(k);
    run_checked({ip, "netns", "add", ns}, log);
    built_nodes_ = k + 1;
    run_checked({ip, "-n", ns, "link", "set", "lo", "up"}, log);
    // TCP restarts its congestion window after a pause longer than its retransmission
    // timeout (RFC 2861): a message sent after a training step's compute would cross in slow
    // start, round trips the link's rate and latency do not give. The fabrics a topology
    // describes (InfiniBand, RoCE) keep no such window, so it is off here. (In --sync-phases
    // runs the barriers before each phase keep the connections busy: the same inter-node
    // all-reduce times with and without it, 2 x 2 at 5 Mbit/s and 57 ms one way.)
    run_checked({ip, "netns", "exec", ns, "/bin/sh", "-c",
                 "echo 0 > /proc/sys/net/ipv4/tcp_slow_start_after_idle"},
                log);
    for (int r = 0; r < spec_.rails; ++r) {
      const std::string host_end = prefix_ + "v" + std::to_string(k) + "r" + std::to_string(r);
      const std::string node_end = prefix_ + "p" + std::to_string(k) + "r" + std::to_string(r);
      const std::string dev = "rail" + std::to_string(r);
      run_checked({ip, "link", "add", host_end, "mtu", std::to_string(mtu), "type", "veth", "peer",
                   "name", node_end, "mtu", std::to_string(mtu)},
                  log);
      host_ends[r].push_back(host_end);
      run_checked({ip, "link", "set", node_end, "netns", ns}, log);
      run_checked({ip, "-n", ns, "link", "set", node_end, "name", dev}, log);
      run_checked({ip, "-n", ns, "addr", "add", address(k, r) + "/24", "dev", dev}, log);
      run_checked({ip, "-n", ns, "link", "set", dev, "up"}, log);
      run_checked({ip, "link", "set", host_end, "up"}, log);
      shape({tc, "qdisc", "add", "dev", host_end});       // toward the node
      shape({tc, "-n", ns, "qdisc", "add", "dev", dev});  // from the node
    }
  }
  if (delay_us > 0 && !netem) {
    // One switch per rail in user space, holding each frame for the whole one-way latency.
    switch_ = std::make_unique<DelaySwitch>(host_ends, spec_.one_way_s);
    switch_->start();
    delay_method_ = "user-space switch";
    std::fprintf(stderr,
                 "emulate: this kernel has no netem qdisc; a switch in user space delays every "
                 "frame by %.4g us\n",
                 spec_.one_way_s * 1e6);
    return write_launch_files();
  }
  if (delay_us > 0) delay_method_ = "netem";
  for (int r = 0; r < spec_.rails; ++r) {
    bridges_ = true;
    const std::string br = prefix_ + "b" + std::to_string(r);
    run_checked({ip, "link", "add", br, "mtu", std::to_string(mtu), "type", "bridge"}, log);
    run_checked({ip, "link", "set", br, "up"}, log);
    for (const auto& end : host_ends[r]) run_checked({ip, "link", "set", end, "master", br}, log);
  }
  write_launch_files();
}

void EmulatedCluster::write_launch_files() {
  agent_ = workdir_ + "/agent.sh";
  hostfile_ = workdir_ + "/hostfile";
  {
    std::ofstream h(hostfile_);
    for (int k = 0; k < spec_.nodes; ++k)
      h << address(k, 0) << " slots=" << spec_.gpus_per_node << "\n";
  }
  std::ofstream a(agent_);
  a << "#!/bin/sh\n"
       "# prunex emulate: Open MPI's rsh agent. Enters the emulated node's network namespace\n"
       "# (with its own hostname, and that node's NCCL_HOSTID: NCCL takes each emulated node\n"
       "# for a host of its own even where its hostname check would not) instead of logging\n"
       "# in over ssh.\n"
       "while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n"
       "host=$1; shift\n"
       "case \"$host\" in\n";
  for (int k = 0; k < spec_.nodes; ++k)
    a << "  " << address(k, 0) << ") ns=" << netns(k) << "; name=" << hostname(k)
      << "; id=" << nccl_host_id(k) << " ;;\n";
  a << "  *) echo \"prunex emulate agent: unknown host $host\" >&2; exit 255 ;;\n"
       "esac\n"
       "exec "
    << find_system_program("ip") << " netns exec \"$ns\" " << find_system_program("unshare")
    << " --uts sh -c \"hostname $name && export NCCL_HOSTID=$id && $*\"\n";
  a.close();
  fs::permissions(agent_, fs::perms::owner_all);
}

void EmulatedCluster::check_rates(double tolerance) const {
  if (spec_.nodes < 2) return;
  const std::string self = self_executable();
  const std::string ip = find_system_program("ip");
  // What a correctly shaped link carries: the TCP payload share of the rate at its frame size.
  const double expected = spec_.rate_bps * tcp_goodput_fraction(emulated_link_mtu(spec_.rate_bps));
  // About 0.5 s of traffic per link at the configured rate (at least 256 KiB); the rate is
  // measured over its second half (emulate-probe).
  const double bytes = std::max(262144.0, spec_.rate_bps / 8 * 0.5);
  int port = 40000 + static_cast<int>(getpid() % 20000);
  // One probe of node k's link to node `to` on rail r: the payload rate in bit/s.
  auto probe = [&](int k, int to, int r, const std::string& link) {
    const std::string out = workdir_ + "/probe.txt";
    std::error_code ec;
    fs::remove(out, ec);
    const std::string where = address(to, r) + ":" + std::to_string(++port);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t listener = spawn_process(
        {ip, "netns", "exec", netns(to), self, "emulate-probe", "--listen", where, "--out", out});
    const int rc = run_subprocess({ip, "netns", "exec", netns(k), self, "emulate-probe", "--send",
                                   where, "--bytes", fmt_num(bytes)},
                                  workdir_ + "/probe_send.log");
    wait_process(listener);
    std::istringstream in(read_text(out));
    double total = 0, got_bytes = 0, seconds = 0;
    in >> total >> got_bytes >> seconds;
    if (rc != 0 || !(seconds > 0) || total < bytes)
      throw std::runtime_error("link check " + link + ": the probe transfer failed (" +
                               read_text(workdir_ + "/probe_send.log") + ")");
    return 8 * got_bytes / seconds;
  };
  // A shaper cannot carry more than its rate, but a busy host can make one probe fall short:
  // a link is probed up to three times and its best probe counts.
  constexpr int kProbes = 3;
  for (int r = 0; r < spec_.rails; ++r)
    for (int k = 0; k < spec_.nodes; ++k) {
      const int to = (k + 1) % spec_.nodes;
      const std::string link =
          hostname(k) + " -> " + hostname(to) + " on rail " + std::to_string(r);
      double best = 0;
      for (int attempt = 1; attempt <= kProbes; ++attempt) {
        const double measured = probe(k, to, r, link);
        best = std::max(best, measured);
        std::fprintf(stderr, "emulate: link %s: %.4g Mbit/s (%.4g configured, %.4g expected)%s\n",
                     link.c_str(), measured / 1e6, spec_.rate_bps / 1e6, expected / 1e6,
                     attempt > 1 ? " again" : "");
        if (std::abs(best / expected - 1) <= tolerance) break;
      }
      if (std::abs(best / expected - 1) > tolerance)
        throw std::runtime_error(
            "link " + link + " carried " + fmt_num(best / 1e6) + " Mbit/s at best of " +
            std::to_string(kProbes) + " probes, expected " + fmt_num(expected / 1e6) +
            " Mbit/s (TCP payload of " + fmt_num(spec_.rate_bps / 1e6) + " Mbit/s; more than " +
            fmt_num(100 * tolerance) +
            "% off: this host cannot shape links to that rate; raise --slowdown)");
    }
}

void EmulatedCluster::teardown() {
  if (switch_) switch_->stop();
  switch_.reset();
  const std::string ip = find_system_program("ip");
  for (int k = 0; k < built_nodes_; ++k) {
    for (int r = 0; r < spec_.rails; ++r)
      run_quiet({ip, "link", "del", prefix_ + "v" + std::to_string(k) + "r" + std::to_string(r)});
    run_quiet({ip, "netns", "del", netns(k)});
  }
  built_nodes_ = 0;
  if (bridges_)
    for (int r = 0; r < spec_.rails; ++r)
      run_quiet({ip, "link", "del", prefix_ + "b" + std::to_string(r)});
  bridges_ = false;
  if (!workdir_.empty()) {
    std::error_code ec;
    fs::remove_all(workdir_, ec);
    workdir_.clear();
  }
}

int cleanup_stale_emulations() {
  const std::string ip = find_system_program("ip");
  char tmpl[] = "/tmp/prunex-cleanup-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  const std::string dir = tmpl, out = dir + "/out";
  auto stale = [](const std::string& name) {
    // pxe + 6 hex digits of the owner's pid; live owners keep theirs.
    if (name.size() < 9 || name.rfind("pxe", 0) != 0) return false;
    const auto pid = std::strtoul(name.substr(3, 6).c_str(), nullptr, 16);
    return pid == 0 || (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
  };
  int removed = 0;
  run_subprocess({ip, "-o", "link", "show"}, out);
  std::istringstream links(read_text(out));
  std::string line;
  while (std::getline(links, line)) {
    // "12: name@peer: <...>" or "12: name: <...>"
    const auto a = line.find(": "), b = line.find_first_of("@:", a + 2);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string name = line.substr(a + 2, b - a - 2);
    if (stale(name) && run_quiet({ip, "link", "del", name}) == 0) ++removed;
  }
  run_subprocess({ip, "netns", "list"}, out);
  std::istringstream spaces(read_text(out));
  while (std::getline(spaces, line)) {
    const std::string name = line.substr(0, line.find(' '));
    if (stale(name) && run_quiet({ip, "netns", "del", name}) == 0) ++removed;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return removed;
}

}  // namespace prunex
