// `prunex plot`: the paper's figures from run records, drawn by the matplotlib scripts in
// analysis/plots/ (one per figure kind). This file only checks the command line, finds the
// scripts and runs Debian's /usr/bin/python3 on them; the script's exit code is ours (2: bad
// input, with one line on stderr and no output file).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "engine/error.h"
#include "host/process.h"
#include "host/source_tree.h"
#include "records/output_dir.h"
#include "settings/config_fields.h"
#include "simulate/simulate_config.h"
#include "workloads/train/train_config.h"

#ifndef PRUNEX_PLOTS_DIR
#error "PRUNEX_PLOTS_DIR must be defined (CMakeLists.txt does it for the prunex target)"
#endif

namespace prunex::cli {

namespace {

namespace fs = std::filesystem;

// Debian's interpreter, which has python3-matplotlib (scripts/setup.sh); the `python3` on
// PATH may be a pyenv without it.
constexpr const char* kPython = "/usr/bin/python3";

struct PlotKind {
  const char* name;
  const char* script;
  const char* needs;
  bool takes_layer;
  bool takes_reference = false;  // --reference: published values drawn beside ours
};

const std::vector<PlotKind>& kinds() {
  static const std::vector<PlotKind> k = {
      {"scaling", "scaling.py",
       "scaling.json from `prunex sweep`: speedup and efficiency against GPUs (Fig. 9)", false,
       true},
      {"comm-latency", "comm_latency.py",
       "metrics.json per strategy: communication time per iteration (Fig. 7)", false, true},
      {"comm-breakdown", "comm_breakdown.py",
       "metrics.json per strategy: communication time by phase (Fig. 8)", false, true},
      {"message-size", "message_size.py",
       "metrics.json per model/strategy: bytes per iteration, total inter-node (Fig. 6)", false},
      {"residuals", "residuals.py",
       "one H-SADMM metrics.json: residuals per rank and per layer (Figs. 10-11)", true},
      {"accuracy", "accuracy.py",
       "metrics.json per strategy: accuracy against time and inter-node bytes (Fig. 5)", false},
      {"sparsity-accuracy", "sparsity_accuracy.py",
       "metrics.json per keep rate: final accuracy against sparsity (Fig. 12)", false},
      {"mask", "mask.py", "masks.json (see analysis/plots/README.md): learned masks (Fig. 13)",
       true},
      {"published", "published.py",
       "published.json from `prunex validate`: predicted against published, log-log", false},
      {"compare", "compare.py",
       "two or more metrics.json (the first the baseline): each named by the settings it "
       "differs in; time per iteration by phase and inter-node bytes, a table and two panels",
       false},
      {"winners", "winners.py",
       "winners.json from `prunex winners`: the fastest strategy per GPU count and NIC "
       "bandwidth, with margins and where hsadmm beats ddp",
       false},
      {"stragglers", "stragglers.py",
       "stragglers.json from scripts/studies/straggler_study.sh: slowdown by one slow GPU per "
       "strategy",
       false},
  };
  return k;
}

std::string kind_list() {
  std::string s;
  for (const auto& k : kinds()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

fs::path scripts_dir() {
  return source_tree_path("analysis/plots", "common.py", PRUNEX_PLOTS_DIR);
}

int run_plot(const Args& args) {
  const auto& pos = args.positional();
  PRUNEX_USAGE(!pos.empty(), "missing KIND (one of ", kind_list(), ")");
  const PlotKind* kind = nullptr;
  for (const auto& k : kinds())
    if (pos[0] == k.name) kind = &k;
  PRUNEX_USAGE(kind != nullptr, "unknown plot kind '", pos[0], "' (one of ", kind_list(), ")");
  PRUNEX_USAGE(pos.size() >= 2, "plot ", kind->name, " needs at least one INPUT file");
  const auto out = args.get("out");
  PRUNEX_USAGE(out.has_value(), "missing --out FILE.png or FILE.svg");
  const std::string ext = fs::path(*out).extension().string();
  PRUNEX_USAGE(ext == ".png" || ext == ".svg", "--out ", *out, " must end in .png or .svg");
  const OutputFile out_file(*out);  // before matplotlib starts
  PRUNEX_USAGE(kind->takes_layer || !args.has("layer"),
               "--layer applies only to residuals "
               "and mask, not ",
               kind->name);
  if (!kind->takes_reference && args.has("reference")) {
    std::string takers;
    for (const auto& k : kinds())
      if (k.takes_reference) takers += (takers.empty() ? "" : ", ") + std::string(k.name);
    throw UsageError("--reference applies only to " + takers + ", not " + kind->name);
  }
  if (const auto ref = args.get("reference"))
    PRUNEX_USAGE(fs::is_regular_file(*ref), "--reference ", *ref, ": no such file");
  for (size_t i = 1; i < pos.size(); ++i)
    PRUNEX_USAGE(fs::is_regular_file(pos[i]), "input ", pos[i], ": no such file");
  if (access(kPython, X_OK) != 0)
    throw std::runtime_error(std::string(kPython) +
                             " not found: scripts/setup.sh installs python3-matplotlib");

  // The keys a record's config holds beside its settings (the run's facts: its links, world
  // size, trace steps...): the figures name runs by their settings only.
  std::string facts;
  for (const auto& key : recorded_config_keys()) {
    const auto named = [&key](const auto& fields) {
      return std::any_of(fields.begin(), fields.end(),
                         [&](const auto& f) { return f.name == key; });
    };
    if (!named(sim::simulate_fields()) && !named(train_fields()))
      facts += (facts.empty() ? "" : ",") + key;
  }
  setenv("PRUNEX_RECORD_FACTS", facts.c_str(), 1);
  // -B: no __pycache__ written into the source tree.
  std::vector<std::string> argv = {kPython, "-B", (scripts_dir() / kind->script).string()};
  argv.insert(argv.end(), pos.begin() + 1, pos.end());
  argv.insert(argv.end(), {"--out", *out});
  if (const auto layer = args.get("layer")) argv.insert(argv.end(), {"--layer", *layer});
  if (const auto ref = args.get("reference")) argv.insert(argv.end(), {"--reference", *ref});
  return run_subprocess(argv);
}

std::string kinds_help() {
  std::string s = "kinds:\n";
  for (const auto& k : kinds()) s += "  " + std::string(k.name) + ": " + k.needs + "\n";
  return s;
}

PRUNEX_REGISTER_COMMAND(Command{
    "plot",
    "the paper's figures (PNG or SVG) from metrics.json, scaling.json or masks.json",
    "prunex plot KIND INPUT... --out FILE.png|FILE.svg [--layer NAME] [--reference FILE]",
    "Draws one figure with matplotlib (/usr/bin/python3 analysis/plots/KIND.py) and prints\n"
    "one line summarising what it drew. The format follows the extension of --out; the file\n"
    "is written whole or not at all. Runs are labelled 'model / strategy' from their config.\n\n" +
        kinds_help() +
        "\nexamples:\n"
        "  prunex plot comm-breakdown out/hsadmm/metrics.json out/ddp/metrics.json "
        "--out fig8.png\n"
        "  prunex plot residuals out/hsadmm/metrics.json --layer features.3.weight "
        "--out fig11.svg\n"
        "  prunex plot compare out/base/metrics.json out/tcp/metrics.json --out compare.png",
    {
        {"out", "FILE", "output image; .png or .svg", ""},
        {"layer", "NAME", "residuals: one layer instead of the whole model; mask: one layer", ""},
        {"reference", "FILE",
         "published values drawn beside ours: a JSON object {\"label\": TEXT, \"speedup\": "
         "{STRATEGY: {GPUS: x}}, \"efficiency\": {STRATEGY: {GPUS: fraction}} (scaling: hollow "
         "stars), \"comm_seconds\": {STRATEGY: s} (comm-latency: dashed lines), "
         "\"phase_share\": {PHASE: fraction} (comm-breakdown: a bar of hsadmm's total in those "
         "shares)}; reproduce writes the paper's as runs/paper.json",
         ""},
    },
    run_plot,
    "KIND INPUT..."});

}  // namespace
}  // namespace prunex::cli
