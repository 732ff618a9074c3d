#include "analysis/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/phases.h"

namespace prunex {

void print_run_summary(std::FILE* f, const RunRecord& run, const std::string& out_dir) {
  const nlohmann::json s = summary_json(run);
  const double per_iter = s["time_per_iteration_s"].get<double>();
  fmt::print(f, "\n{} iteration{}, {:.3f} s per iteration (critical path per phase, mean):\n",
             run.iterations.size(), run.iterations.size() == 1 ? "" : "s", per_iter);
  fmt::print(f, "  {:<18} {:>12} {:>9} {:>6}\n", "phase", "seconds", "share", "comm");
  double shares = 0;
  // Rows in the order an iteration runs its phases (engine/phases.h), sync_wait last.
  std::vector<std::pair<std::string, double>> rows;
  for (const auto& name : s["phase_order"])
    if (s["phase_seconds"].contains(name.get<std::string>()))
      rows.emplace_back(name.get<std::string>(),
                        s["phase_seconds"][name.get<std::string>()].get<double>());
  for (const auto& [name, t] : rows) {
    const double share = per_iter > 0 ? 100.0 * t / per_iter : 0.0;
    shares += share;
    fmt::print(f, "  {:<18} {:>12.4f} {:>8.1f}% {:>6}\n", name, t, share,
               is_communication(name.c_str()) ? "yes" : "");
  }
  // Each phase's critical path is its slowest rank, and the slowest rank differs between
  // phases: their sum can pass the iteration's wall time.
  if (shares > 100.5)
    fmt::print(f, "  (shares sum to {:.1f}%: each phase's slowest rank, not the same rank)\n",
               shares);
  fmt::print(
      f,
      "bytes per iteration: intra {:.3f} MB, inter {:.3f} MB (dense {:.3f} MB), world {:.3f} MB\n",
      s["intra_node_bytes_per_iteration"].get<double>() / 1e6,
      s["inter_node_bytes_per_iteration"].get<double>() / 1e6,
      s["dense_inter_node_bytes_per_iteration"].get<double>() / 1e6,
      s["world_bytes_per_iteration"].get<double>() / 1e6);
  // A simulated run's busiest links (simulate/simulate_run.cc): where a what-if moves the
  // bottleneck; metrics.json's summary.links lists them (the busiest 4,096 of links_total).
  if (const auto l = s.find("links"); l != s.end() && l->is_array() && !l->empty()) {
    fmt::print(f, "busiest links (of {}; bytes per iteration, share of the link's bandwidth):",
               s.value("links_total", l->size()));
    for (std::size_t i = 0; i < std::min<std::size_t>(3, l->size()); ++i) {
      const auto& x = (*l)[i];
      fmt::print(f, "{} {} {:.3f} MB {:.1f}%", i ? ";" : "", x["link"].get<std::string>(),
                 x["bytes_per_iteration"].get<double>() / 1e6,
                 100 * x["utilisation"].get<double>());
    }
    fmt::print(f, "\n");
  }
  // A simulated run's error band (simulate/error_band.h): where the measured time may lie.
  if (const auto b = s.find("time_per_iteration_band"); b != s.end() && b->is_object()) {
    const double lo = (*b)["low"].get<double>(), hi = (*b)["high"].get<double>();
    fmt::print(f,
               "{:.0f}% band of the time per iteration: {:.3f} - {:.3f} s ({:+.0f}% / {:+.0f}%), "
               "from {} held-out rows of {} published entries: {}\n",
               100 * (*b)["level"].get<double>(), per_iter * (1 + lo), per_iter * (1 + hi),
               100 * lo, 100 * hi, (*b)["rows"].get<int>(), (*b)["entries"].get<int>(),
               (*b)["where"].get<std::string>());
  } else if (b != s.end()) {
    fmt::print(f,
               "no error band: too few held-out rows of the published suite resemble this run\n");
  }
  if (s.contains("test_accuracy")) {
    fmt::print(f, "test accuracy: {:.2f}%", 100.0 * s["test_accuracy"].get<double>());
    // A live run's evaluations on the test set: their time is not in the iterations'.
    if (const auto e = s.find("evaluation_seconds"); e != s.end() && e->is_number())
      fmt::print(f, " (the evaluations took {:.1f} s, apart from the iterations' times)",
                 e->get<double>());
    fmt::print(f, "\n");
  }
  const bool masks = run.extra_files.count("masks.json") > 0;
  fmt::print(f, "wrote {}/metrics.json, {}/trace.json{}\n", out_dir, out_dir,
             masks ? " and " + out_dir + "/masks.json" : "");
  std::fflush(f);
}

}  // namespace prunex
