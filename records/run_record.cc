#include "records/run_record.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/error.h"
#include "engine/phases.h"

namespace prunex {

double critical_path(const std::vector<double>& per_rank) {
  return per_rank.empty() ? 0.0 : *std::max_element(per_rank.begin(), per_rank.end());
}

nlohmann::json iteration_json(const IterationRecord& it) {
  nlohmann::json j;
  j["iteration"] = it.iteration;
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [p, per_rank] : it.phase_seconds)
    phases[std::string(phase_name(p))] = {{"critical_path_s", critical_path(per_rank)},
                                          {"per_rank_s", per_rank}};
  j["phases"] = phases;
  j["wall_seconds"] = it.wall_seconds;
  j["bytes"] = {{"intra", it.bytes.intra}, {"inter", it.bytes.inter}, {"world", it.bytes.world}};
  j["dense_inter_bytes"] = it.dense_inter_bytes;
  j["density"] = it.density;
  nlohmann::json res = nlohmann::json::object();
  for (const auto& [layer, per_rank] : it.residuals) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : per_rank)
      arr.push_back({{"r_intra", r.r_intra},
                     {"s_intra", r.s_intra},
                     {"r_inter", r.r_inter},
                     {"s_inter", r.s_inter}});
    res[layer] = arr;
  }
  j["residuals"] = res;
  nlohmann::json rho = nlohmann::json::object();
  for (const auto& [layer, r] : it.rho) rho[layer] = {r.first, r.second};
  j["rho"] = rho;
  if (it.loss) j["loss"] = *it.loss;
  if (it.accuracy) j["accuracy"] = *it.accuracy;
  j["mask_frozen"] = it.mask_frozen;
  for (const auto& [k, v] : it.extra.items()) j[k] = v;
  return j;
}

IterationRecord iteration_from_json(const nlohmann::json& j, const std::string& origin) {
  IterationRecord it;
  try {
    PRUNEX_USAGE(j.is_object(), origin, ": an iteration record is not an object");
    it.iteration = j.at("iteration").get<int>();
    for (const auto& [name, p] : j.at("phases").items())
      it.phase_seconds[parse_phase(name)] = p.at("per_rank_s").get<std::vector<double>>();
    it.wall_seconds = j.at("wall_seconds").get<double>();
    const auto& b = j.at("bytes");
    it.bytes = {b.at("intra").get<double>(), b.at("inter").get<double>(),
                b.at("world").get<double>()};
    it.dense_inter_bytes = j.at("dense_inter_bytes").get<double>();
    it.density = j.at("density").get<std::map<std::string, double>>();
    for (const auto& [layer, arr] : j.at("residuals").items()) {
      auto& per_rank = it.residuals[layer];
      for (const auto& r : arr)
        per_rank.push_back({r.at("r_intra").get<double>(), r.at("s_intra").get<double>(),
                            r.at("r_inter").get<double>(), r.at("s_inter").get<double>()});
    }
    for (const auto& [layer, r] : j.at("rho").items())
      it.rho[layer] = {r.at(0).get<double>(), r.at(1).get<double>()};
    if (j.contains("loss")) it.loss = j["loss"].get<double>();
    if (j.contains("accuracy")) it.accuracy = j["accuracy"].get<double>();
    it.mask_frozen = j.at("mask_frozen").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    PRUNEX_USAGE(false, origin, ": bad iteration record (", e.what(), ")");
  }
  static const char* known[] = {
      "iteration", "phases", "wall_seconds", "bytes",    "dense_inter_bytes", "density",
      "residuals", "rho",    "loss",         "accuracy", "mask_frozen"};
  for (const auto& [k, v] : j.items())
    if (std::find(std::begin(known), std::end(known), k) == std::end(known)) it.extra[k] = v;
  return it;
}

nlohmann::json summary_json(const RunRecord& run) {
  nlohmann::json s = nlohmann::json::object();
  s["completed"] = run.completed;
  const double n = static_cast<double>(std::max<size_t>(1, run.iterations.size()));
  double wall = 0, inter = 0, dense_inter = 0, intra = 0, world = 0;
  std::map<Phase, double> phase_total;
  for (const auto& it : run.iterations) {
    wall += it.wall_seconds;
    inter += it.bytes.inter;
    intra += it.bytes.intra;
    world += it.bytes.world;
    dense_inter += it.dense_inter_bytes;
    for (const auto& [name, per_rank] : it.phase_seconds)
      phase_total[name] += critical_path(per_rank);
  }
  s["iterations"] = run.iterations.size();
  s["time_per_iteration_s"] = wall / n;
  s["inter_node_bytes_per_iteration"] = inter / n;
  s["dense_inter_node_bytes_per_iteration"] = dense_inter / n;
  s["intra_node_bytes_per_iteration"] = intra / n;
  s["world_bytes_per_iteration"] = world / n;
  s["total_inter_node_bytes"] = inter;
  double comm = 0;
  nlohmann::json mean = nlohmann::json::object();
  for (const auto& [p, t] : phase_total) {
    mean[std::string(phase_name(p))] = t / n;
    if (is_communication(p)) comm += t;
  }
  s["phase_seconds"] = mean;
  s["communication_seconds_per_iteration"] = comm / n;
  nlohmann::json frac = nlohmann::json::object();
  for (const auto& [p, t] : phase_total)
    if (is_communication(p)) frac[std::string(phase_name(p))] = comm > 0 ? t / comm : 0.0;
  s["phase_fraction"] = frac;
  // The phase table's communication phases, so readers (plots, score_prediction.py) need no copy.
  nlohmann::json comm_phases = nlohmann::json::array();
  for (Phase p : kAllPhases)
    if (is_communication(p)) comm_phases.push_back(std::string(phase_name(p)));
  s["communication_phases"] = comm_phases;
  nlohmann::json order = nlohmann::json::array();
  for (Phase p : kAllPhases) order.push_back(std::string(phase_name(p)));
  s["phase_order"] = order;
  for (auto it = run.iterations.rbegin(); it != run.iterations.rend(); ++it)
    if (it->accuracy) {
      s["test_accuracy"] = *it->accuracy;
      break;
    }
  for (const auto& [k, v] : run.summary_extra.items()) s[k] = v;
  return s;
}

nlohmann::json metrics_json(const RunRecord& run) {
  nlohmann::json j;
  j["config"] = run.config;
  j["ranks"] = run.ranks;
  nlohmann::json its = nlohmann::json::array();
  for (const auto& it : run.iterations) its.push_back(iteration_json(it));
  j["iterations"] = its;
  j["summary"] = summary_json(run);
  return j;
}

nlohmann::json trace_json(const RunRecord& run) {
  // Chrome trace format: complete events ("ph": "X") in microseconds, one thread per rank.
  nlohmann::json events = nlohmann::json::array();
  for (int r = 0; r < run.ranks; ++r)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", r},
                      {"args", {{"name", "rank " + std::to_string(r)}}}});
  for (const auto& e : run.trace)
    events.push_back({{"name", std::string(phase_name(e.phase))},
                      {"cat", "phase"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", e.rank},
                      {"ts", e.start_s * 1e6},
                      {"dur", e.duration_s * 1e6}});
  for (const auto& c : run.counters)
    events.push_back({{"name", c.track},
                      {"cat", "counter"},
                      {"ph", "C"},
                      {"pid", 0},
                      {"ts", c.time_s * 1e6},
                      {"args", {{c.series, c.value}}}});
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

namespace {

// The temporary file being written, for SIGINT/SIGTERM (mpirun forwards them to every rank):
// the handler removes it and dies of the signal, so an interrupted run leaves whole files
// only. One writer thread per process; unlink() is async-signal-safe.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_set = 0;

extern "C" void remove_temp_and_die(int sig) {
  if (g_temp_set) unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  raise(sig);
}

class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& tmp) {
    static const bool installed = [] {
      for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        sigaction(sig, nullptr, &old);
        if (old.sa_handler == SIG_DFL) std::signal(sig, remove_temp_and_die);
      }
      return true;
    }();
    (void)installed;
    if (tmp.size() >= sizeof g_temp_path) return;
    g_temp_set = 0;
    std::memcpy(g_temp_path, tmp.c_str(), tmp.size() + 1);
    g_temp_set = 1;
  }
  ~TempFileGuard() { g_temp_set = 0; }
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
};

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    PRUNEX_USAGE(!ec, "cannot create ", p.parent_path().string(), " (", ec.message(), ")");
  }
  // A name no other writer uses (another process, or another file of this one), written
  // whole and flushed to disk before it replaces the old file: a reader, a crash or a second
  // run with the same --out never sees half a file.
  static std::atomic<unsigned long> serial{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(serial++);
  const TempFileGuard guard(tmp);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  PRUNEX_USAGE(fd >= 0, "cannot write ", tmp, " (", std::strerror(errno), ")");
  std::size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  ok = ok && fsync(fd) == 0;
  close(fd);
  if (!ok) {
    unlink(tmp.c_str());
    PRUNEX_USAGE(false, "failed writing ", tmp, " (", std::strerror(saved ? saved : errno), ")");
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    unlink(tmp.c_str());
    PRUNEX_USAGE(false, "cannot replace ", path, " (", ec.message(), ")");
  }
  // The rename itself on disk.
  const int dir = open(p.has_parent_path() ? p.parent_path().c_str() : ".", O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

void write_metrics(const RunRecord& run, const std::string& out_dir) {
  write_file_atomic(out_dir + "/metrics.json", metrics_json(run).dump(1));
}

void write_run(const RunRecord& run, const std::string& out_dir) {
  // Render both first, then write: an exception while rendering leaves nothing behind.
  const std::string metrics = metrics_json(run).dump(1);
  const std::string trace = trace_json(run).dump();
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& [name, j] : run.extra_files) extra.emplace_back(name, j.dump());
  write_file_atomic(out_dir + "/metrics.json", metrics);
  write_file_atomic(out_dir + "/trace.json", trace);
  for (const auto& [name, text] : extra) write_file_atomic(out_dir + "/" + name, text);
}

}  // namespace prunex
