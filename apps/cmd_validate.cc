// `prunex validate`: the simulator against measurements published by others
// (simulate/published.h; the suite in validation/published/). Prints the table, writes
// OUT/published.json, OUT/published.md and OUT/published.svg (the figure, by `prunex plot
// published`).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include <fmt/core.h>

#include "apps/cli.h"
#include "apps/platform_options.h"
#include "engine/error.h"
#include "host/process.h"
#include "host/source_tree.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "simulate/published.h"
#include "simulate/simulate_config.h"

#ifndef PRUNEX_SUITE_DIR
#error "PRUNEX_SUITE_DIR must be defined (CMakeLists.txt does it for the prunex target)"
#endif

namespace prunex::cli {
namespace {

std::vector<Option> validate_options();

int run_validate(const Args& args) {
  std::string out = args.get_or("out", "out/validate");
  std::vector<sim::PublishedEntry> suite;
  nlohmann::json overrides = nlohmann::json::object();
  std::unique_ptr<OutputDir> out_dir;
  int jobs = 1;
  try {
    const std::string dir =
        args.has("suite")
            ? *args.get("suite")
            : source_tree_path("validation/published", "README.md", PRUNEX_SUITE_DIR).string();
    suite = sim::load_published_suite(dir, split_list(args.get_or("only", "")));
    for (const std::string& item : split_list(args.get_or("set", ""))) {
      const std::size_t eq = item.find('=');
      PRUNEX_USAGE(eq != std::string::npos && eq > 0, "--set: '", item, "' is not KEY=VALUE");
      // A number or a boolean as JSON, anything else as text (as --config files hold them).
      const std::string value = item.substr(eq + 1);
      nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
      overrides[item.substr(0, eq)] =
          parsed.is_number() || parsed.is_boolean() ? parsed : nlohmann::json(value);
    }
    // The platform's options, as --set would give them (an entry's own settings win).
    sim::PlatformSettings platform;
    for (const std::string& name : read_platform(args, platform))
      for (const auto& f : sim::platform_fields())
        if (f.name == name) overrides[name] = f.get(platform);
    sim::SimulateConfig probe;  // every override checked as `prunex simulate` checks it
    apply_config_json(sim::simulate_fields(), probe, overrides, "--set");
    if (args.flag("list")) {
      // --list reads the suite and --only and runs nothing: what else was given would be
      // ignored without a word.
      for (const auto& o : validate_options())
        PRUNEX_USAGE(o.name == "list" || o.name == "suite" || o.name == "only" || !args.has(o.name),
                     "--", o.name, " applies to a run, not to --list");
      for (const auto& e : suite)
        fmt::print("{:<44} {:<22} {} points{}\n", e.id, sim::quantity_name(e.quantity),
                   e.points.size(), e.not_modelled.empty() ? "" : " (not modelled)");
      return 0;
    }
    const long cores = std::max(1L, static_cast<long>(std::thread::hardware_concurrency()));
    jobs = static_cast<int>(args.get_int("jobs", cores, 1, 4096));
    PRUNEX_USAGE(!out.empty(), "--out is empty");
    out_dir = std::make_unique<OutputDir>(out);
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex validate: error: {}\n", e.what());
    return 2;
  }
  fmt::print(stderr, "validate: {} entr{} from the suite, {} job{}\n", suite.size(),
             suite.size() == 1 ? "y" : "ies", jobs, jobs == 1 ? "" : "s");
  int last = -1;
  sim::PublishedResult result;
  try {
    result = sim::run_published_suite(suite, jobs, overrides, [&](int done, int total) {
      const int pct = total > 0 ? 100 * done / total : 100;
      if (pct / 10 != last / 10 || done == total) {
        fmt::print(stderr, "validate: {}/{} simulations\n", done, total);
        last = pct;
      }
    });
  } catch (const UsageError& e) {
    fmt::print(stderr, "prunex validate: error: {}\n", e.what());
    return 2;
  }
  const nlohmann::json report = sim::published_report(suite, result);
  const std::string md = sim::published_markdown(report);
  write_file_atomic(out + "/published.json", report.dump(2) + "\n");
  write_file_atomic(out + "/published.md", "# prunex validate\n\n" + md);
  // What error bands are read from (validation/residuals.json holds the recorded run's).
  write_file_atomic(out + "/residuals.json",
                    sim::residuals_json(sim::held_out_residuals(result.rows)).dump(2) + "\n");
  fmt::print("{}", md);
  if (!args.flag("no-figure") && !result.rows.empty()) {
    const int rc = run_subprocess({"/proc/self/exe", "plot", "published", out + "/published.json",
                                   "--out", out + "/published.svg"});
    if (rc != 0) fmt::print(stderr, "validate: the figure failed (exit {})\n", rc);
  }
  fmt::print("wrote {}/published.json, published.md, residuals.json{}\n", out,
             args.flag("no-figure") ? "" : ", published.svg");
  return 0;
}

std::vector<Option> validate_options() {
  std::vector<Option> opts = {
      {"suite", "DIR", "folder of suite files (*.json)", "validation/published"},
      {"only", "IDS",
       "entries whose id (FILE/NAME) is or starts with one of these, or all of a suite file's "
       "given as FILE.json (comma-separated; given twice, both lists)",
       "all"},
      {"out", "DIR", "output folder (results/published holds the recorded run)", "out/validate"},
      integer_option("jobs", "N", "simulations at once, each in its own process", "the cores", 1,
                     4096),
      {"set", "KEY=V,...",
       "simulate settings for every training point that does not state them (e.g. "
       "interference=1 to see a mechanism's effect; achieved-bandwidth and call-latency also "
       "apply to collective entries; given twice, both lists)",
       ""},
      {"list", "", "list the suite's entries and exit", ""},
      {"no-figure", "", "skip published.svg (no matplotlib needed)", ""},
  };
  // The simulated platform, as simulate takes it: the same as --set NAME=VALUE.
  const auto platform = platform_options();
  opts.insert(opts.end() - 2, platform.begin(), platform.end());
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "validate",
    "the simulator against published measurements of real clusters (table, figure, errors)",
    "prunex validate [--only ID,...] [--set KEY=V,...] [--suite DIR] [--out DIR] [--jobs N] "
    "[--list]",
    "Predicts every entry of the published-measurement suite (validation/published/*.json:\n"
    "training throughput and step times of DDP and Horovod on DGX-1, DGX-2, C4140 and DGX\n"
    "A100 clusters, nccl-tests bus bandwidths and latencies) on its modeled cluster and prints,\n"
    "per row, the published value, the prediction, the error and what binds the step\n"
    "(compute, intra, inter or latency: the resource whose doubling saves the most time).\n"
    "An entry that names a fit point has its GPU speed solved on that point (reported, not\n"
    "held out); the geometric-mean error is over the held-out rows. Entries the model cannot\n"
    "run are listed with the reason. Each held-out row also gets the 80% error band that the\n"
    "other entries' held-out rows give it (what simulate and sweep attach to their times:\n"
    "docs/simulation.md, Error bands), and the bands' coverage is reported at 50, 80 and 90%.\n"
    "Writes OUT/published.json, OUT/published.md, OUT/residuals.json (the held-out rows'\n"
    "residuals; validation/residuals.json holds the recorded run's, which predictions read)\n"
    "and OUT/published.svg (predicted against published, log-log, y = x).\n\n"
    "examples:\n"
    "  prunex validate --out out/validate\n"
    "  prunex validate --only pytorch-ddp-readme/resnet50 --out out/v\n"
    "  prunex validate --set interference=1 --out out/no-interference\n"
    "  prunex validate --list",
    validate_options(), run_validate});

}  // namespace
}  // namespace prunex::cli
