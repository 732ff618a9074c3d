// `prunex reproduce`: regenerates the paper's communication figures (Figs. 6-9) on a modeled
// cluster by running prunex's own sweep / simulate / plot commands (each in its own process,
// its output in OUT/logs/), then compares every number the paper states with ours
// (OUT/REPORT.md, OUT/report.json) and projects the figures beyond the paper's 64 GPUs.
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "analysis/paper_numbers.h"
#include "analysis/reproduction.h"
#include "analysis/run_quantities.h"
#include "apps/cli.h"
#include "apps/platform_options.h"
#include "apps/reproduce_steps.h"
#include "engine/error.h"
#include "host/process.h"
#include "netmodel/sim_config.h"
#include "records/json_file.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "topologies/link_what_if.h"
#include "topologies/topology_io.h"

namespace prunex::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int bounded_int(const Args& args, const char* name, long fallback, long lo, long hi) {
  return static_cast<int>(args.get_int(name, fallback, lo, hi));
}

ReproduceOptions parse_options(const Args& args) {
  ReproduceOptions o;
  o.out = args.get_or("out", o.out);
  PRUNEX_USAGE(!o.out.empty(), "--out is empty");
  o.topology_arg = args.get_or("topology", o.topology_arg);
  o.topology = load_topology(o.topology_arg);
  o.gpus_per_node = o.topology.gpus_per_node;
  PRUNEX_USAGE(8 % o.gpus_per_node == 0, "topology ", o.topology.name, " has ", o.gpus_per_node,
               " GPUs per node; Fig. 9 needs 8 and 64 GPUs in whole nodes (1, 2, 4 or 8 per node)");
  o.iterations = bounded_int(args, "iterations", paper::kOuterIterations, 1, 100000);
  o.t_freeze = bounded_int(args, "t-freeze", paper::kMaskDriftIterations, 0, 100000);
  o.max_gpus = bounded_int(args, "max-gpus", 4096, 0, 1 << 20);
  sim::PlatformSettings platform;
  platform.algo = sim::parse_algo(o.algo);
  const auto given = read_platform(args, platform);  // bad values: one line, exit 2, up front
  o.algo = sim::algo_name(platform.algo);
  o.simulated = apply_link_what_if(o.topology, platform.link_what_if());
  if (platform.achieved_bandwidth) o.simulated = achieved_bandwidths(o.simulated);
  for (const auto& f : sim::platform_fields())
    if (f.name != "algo" && given.count(f.name)) {
      o.platform_args.push_back("--" + f.name);
      o.platform_args.push_back(default_text(f.get(platform)));
    }
  // A tree has no all-gather (Top-K's, hsadmm-rail's): only these run every figure.
  PRUNEX_USAGE(o.algo == "nccl" || o.algo == "ring", "--algo ", o.algo,
               ": reproduce runs nccl (NCCL's pick per collective) or ring");
  if (args.flag("skip-projection")) o.max_gpus = 0;
  if (o.max_gpus != 0) {
    int g = 8;
    while (g < o.max_gpus) g *= 2;
    PRUNEX_USAGE(g == o.max_gpus && o.max_gpus >= 128,
                 "--max-gpus must be 8 x a power of two, "
                 "at least 128, or 0 for no projection (got ",
                 o.max_gpus, ")");
  }
  if (auto list = args.get("union-growth")) o.growth = split_list(*list);
  for (const auto& g : o.growth) {
    char* end = nullptr;
    const double v = std::strtod(g.c_str(), &end);
    PRUNEX_USAGE(!g.empty() && *end == '\0' && v > 0 && v <= 1, "--union-growth: '", g,
                 "' is not a number in (0, 1]");
  }
  o.command_line = "prunex reproduce --out " + o.out + " --topology " + o.topology_arg +
                   " --iterations " + std::to_string(o.iterations) + " --t-freeze " +
                   std::to_string(o.t_freeze) + " --max-gpus " + std::to_string(o.max_gpus) +
                   " --algo " + o.algo;
  for (const auto& a : o.platform_args) o.command_line += " " + a;
  if (o.max_gpus != 0 && !o.growth.empty()) {
    std::string list;
    for (const auto& g : o.growth) list += (list.empty() ? "" : ",") + g;
    o.command_line += " --union-growth " + list;
  }
  return o;
}

// One scaling.json holding the curves of several sweeps under new names, so one figure can
// show them (the plot keys curves by strategy name).
void combine_scaling(const std::vector<std::array<std::string, 3>>& parts,  // path, from, to
                     const std::string& out) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [path, from, to] : parts) {
    const auto j = read_json_file(path, "reproduce");
    doc[to] = j.at(from);
    if (!doc.contains("config")) doc["config"] = j.at("config");
  }
  write_file_atomic(out, doc.dump(2) + "\n");
}

// The scaling figures' inputs, from the sweeps' records (after the simulations).
void combine_sweeps(const ReproduceOptions& o) {
  const std::string alt = "fig9_sweep_e" + std::to_string(o.alt_local_epochs);
  combine_scaling({{run_path(o, "fig9_sweep") + "/scaling.json", "hsadmm", "hsadmm"},
                   {run_path(o, alt) + "/scaling.json", "hsadmm",
                    "hsadmm E=" + std::to_string(o.alt_local_epochs)},
                   {run_path(o, "fig9_sweep") + "/scaling.json", "hsadmm-flat", "hsadmm-flat"},
                   {run_path(o, "fig9_sweep") + "/scaling.json", "ddp", "ddp"},
                   {run_path(o, "fig9_sweep") + "/scaling.json", "topk", "topk"}},
                  runs_dir(o) + "/fig9_scaling.json");
  const std::string rates = run_path(o, "fig9_sweep_paper_rates") + "/scaling.json";
  combine_scaling({{rates, "hsadmm", "hsadmm"},
                   {run_path(o, alt + "_paper_rates") + "/scaling.json", "hsadmm",
                    "hsadmm E=" + std::to_string(o.alt_local_epochs)},
                   {rates, "hsadmm-flat", "hsadmm-flat"},
                   {rates, "ddp", "ddp"},
                   {run_path(o, "fig9_sweep_paper_rates_ddp_per_epoch") + "/scaling.json", "ddp",
                    "ddp 0.50 s/epoch"},
                   {rates, "topk", "topk"}},
                  runs_dir(o) + "/fig9_scaling_paper_rates.json");
  if (o.max_gpus == 0) return;
  const std::string sweep = run_path(o, "projection_sweep") + "/scaling.json";
  std::vector<std::array<std::string, 3>> parts = {{sweep, "hsadmm", "hsadmm"}};
  for (const auto& g : o.growth)
    parts.push_back({run_path(o, "projection_sweep_" + growth_tag(g)) + "/scaling.json", "hsadmm",
                     "hsadmm g=" + g});
  parts.push_back({sweep, "ddp", "ddp"});
  parts.push_back({sweep, "topk", "topk"});
  combine_scaling(parts, runs_dir(o) + "/projection_scaling.json");
}

// The paper's numbers for Figs. 7-9 (analysis/paper_numbers.h) as plot --reference draws
// them beside ours: Fig. 9's speedups and efficiencies at 64 GPUs, Fig. 7's communication
// seconds per iteration, Fig. 8's shares of H-SADMM's phases.
void write_paper_reference(const std::string& path) {
  const nlohmann::json ref = {
      {"label", "paper"},
      {"speedup",
       {{"hsadmm", {{"64", paper::kSpeedup64Hsadmm}}},
        {"ddp", {{"64", paper::kSpeedup64Ddp}}},
        {"topk", {{"64", paper::kSpeedup64Topk}}}}},
      {"efficiency",
       {{"hsadmm", {{"64", paper::kEfficiency64Hsadmm}}},
        {"ddp", {{"64", paper::kEfficiency64Ddp}}}}},
      {"comm_seconds", {{"hsadmm", paper::kCommLatencyHsadmm}, {"ddp", paper::kCommLatencyDdp}}},
      {"phase_share",
       {{"inter_allreduce", paper::kShareInterAllreduce},
        {"intra_allreduce", paper::kShareIntraAllreduce},
        {"broadcast", paper::kShareBroadcast}}}};
  write_file_atomic(path, ref.dump(2) + "\n");
}

// The figures, as steps to run once combine_sweeps has written their inputs.
std::vector<Step> plot_steps(const ReproduceOptions& o, std::vector<std::string>& figures) {
  auto metrics = [&](const std::string& run) { return run_path(o, run) + "/metrics.json"; };
  std::vector<Step> s;
  auto plot = [&](const std::string& file, const std::string& kind,
                  std::vector<std::string> inputs) {
    std::vector<std::string> a = {"plot", kind};
    a.insert(a.end(), inputs.begin(), inputs.end());
    a.insert(a.end(), {"--out", o.out + "/" + file});
    s.push_back({"plot_" + file.substr(0, file.size() - 4), a});
    figures.push_back(o.out + "/" + file);
  };
  const std::string paper = runs_dir(o) + "/paper.json";
  plot("fig9_scaling.png", "scaling", {runs_dir(o) + "/fig9_scaling.json", "--reference", paper});
  plot("fig9_scaling_paper_rates.png", "scaling",
       {runs_dir(o) + "/fig9_scaling_paper_rates.json", "--reference", paper});
  // Beyond the paper: the peer systems (docs/peers.md) on the same sweep.
  plot("peers_scaling.png", "scaling", {run_path(o, "fig9_sweep") + "/scaling.json"});
  plot("fig7_comm_latency.png", "comm-latency",
       {metrics("resnet152_hsadmm"), metrics("resnet152_hsadmm-flat"), metrics("resnet152_ddp"),
        "--reference", paper});
  plot("fig8_comm_breakdown.png", "comm-breakdown",
       {metrics("resnet152_hsadmm"), metrics("resnet152_ddp"), "--reference", paper});
  plot(
      "fig6_message_size.png", "message-size",
      {metrics("resnet18_hsadmm"), metrics("wide_resnet50_2_hsadmm"), metrics("resnet152_hsadmm")});
  if (o.max_gpus == 0) return s;
  const std::string dir = "projection_" + std::to_string(o.max_gpus) + "/";
  std::vector<std::string> hs = {metrics(dir + "g0")};
  for (const auto& g : o.growth) hs.push_back(metrics(dir + growth_tag(g)));
  auto with_ddp = hs;
  with_ddp.push_back(metrics(dir + "ddp"));
  plot("projection_fig9_scaling.png", "scaling", {runs_dir(o) + "/projection_scaling.json"});
  plot("projection_fig7_comm_latency.png", "comm-latency", with_ddp);
  plot("projection_fig8_comm_breakdown.png", "comm-breakdown", with_ddp);
  plot("projection_fig6_message_size.png", "message-size", hs);
  return s;
}

void run_steps(const ReproduceOptions& o, std::vector<Step>& steps, std::size_t& done,
               std::size_t total, const std::string& exe) {
  for (auto& st : steps) {
    std::vector<std::string> argv = {exe};
    argv.insert(argv.end(), st.args.begin(), st.args.end());
    const std::string log = o.out + "/logs/" + st.name + ".log";
    const auto t0 = Clock::now();
    const int rc = run_subprocess(argv, log);
    st.seconds = seconds_since(t0);
    ++done;
    fmt::print(stderr, "reproduce: [{:2}/{}] {:<34} {:6.1f} s\n", done, total, st.name, st.seconds);
    if (rc != 0)
      throw std::runtime_error("step " + st.name + " exited " + std::to_string(rc) + "; see " +
                               log);
  }
}

int run_reproduce(const Args& args) {
  const auto t0 = Clock::now();
  const ReproduceOptions o = parse_options(args);  // UsageError before anything is written
  const OutputDir out_dir(o.out);  // checked and claimed before the first simulation
  const std::string exe = self_executable();
  fs::create_directories(o.out + "/logs");
  fs::create_directories(runs_dir(o));
  std::vector<Step> sims = simulation_steps(o);
  std::vector<Step> reading2 = paper_rates_steps(o);
  std::vector<std::string> figures;
  std::vector<Step> plot = plot_steps(o, figures);
  const std::size_t total = sims.size() + reading2.size() + plot.size();
  fmt::print(stderr, "reproduce: {} simulations and {} figures on {} into {}\n",
             sims.size() + reading2.size(), plot.size(), o.topology.name, o.out);
  std::size_t done = 0;
  run_steps(o, sims, done, total, exe);
  // Reading 2 needs the 16 x 4 runs' bytes.
  const std::vector<PaperRate> rates = write_paper_rates(o, false);
  const std::vector<PaperRate> rates_ddp_epoch = write_paper_rates(o, true);
  run_steps(o, reading2, done, total, exe);
  sims.insert(sims.end(), reading2.begin(), reading2.end());
  combine_sweeps(o);
  write_paper_reference(runs_dir(o) + "/paper.json");
  run_steps(o, plot, done, total, exe);
  sims.insert(sims.end(), plot.begin(), plot.end());
  write_reproduction_report(o, sims, figures, rates, rates_ddp_epoch,
                            [&] { return seconds_since(t0); });
  return 0;
}

std::vector<Option> reproduce_options() {
  std::vector<Option> opts = {
      {"out", "DIR", "output folder", "out/reproduce"},
      {"topology", "NAME|FILE", "cluster preset or topology JSON file", "puhti"},
      integer_option(
          "iterations", "N",
          "outer iterations of the sweeps and 64-GPU runs (Fig. 6 sums them; the projection's "
          "single runs record 2)",
          "60", 1, 100000),
      integer_option("t-freeze", "T", "mask frozen after iteration T (paper: drift ends in 5-15)",
                     "15", 0, 100000),
      integer_option("max-gpus", "G", "projection up to G GPUs (8 x a power of two); 0: none",
                     "4096", 0, 1 << 20),
      {"union-growth", "LIST", "projection: union growths g > 0 shown beside g = 0", "0.001,0.01"},
      {"skip-projection", "", "no projection (same as --max-gpus 0)", ""},
  };
  // The simulated platform, as simulate takes it; every run gets what is given.
  const auto platform = platform_options(
      {}, {},
      {{"algo",
        "reproduce runs nccl (NCCL's pick per collective, the default: the paper ran "
        "NCCL) or ring (a tree has no all-gather)"}});
  opts.insert(opts.end() - 1, platform.begin(), platform.end());
  return opts;
}

PRUNEX_REGISTER_COMMAND(Command{
    "reproduce",
    "the paper's communication figures (6-9) on a modeled cluster, compared number by number",
    "prunex reproduce [--out DIR] [--topology NAME|FILE] [--iterations N] [--max-gpus G] ...",
    "Runs the simulations behind the paper's Figs. 6-9 on the topology (default puhti, every\n"
    "number with its source) with prunex's own commands, each in its own process (output in\n"
    "DIR/logs/, records in DIR/runs/): Fig. 9 strong scaling 8 -> 64 GPUs of hsadmm,\n"
    "hsadmm-flat, ddp and topk (E = 1, and hsadmm at E = 5); Figs. 7-8 ResNet-152 on 16 x 4\n"
    "GPUs; Fig. 6 ResNet-18, WideResNet-50-2 and ResNet-152 on 16 x 4 GPUs. Then the same\n"
    "figures projected to --max-gpus (hsadmm with nodes that agree and with each\n"
    "--union-growth). A second reading runs Fig. 9 again at the rates the paper's own\n"
    "times (Figs. 7-8) imply for its implementation, taken as a calibration\n"
    "(DIR/runs/paper_rates.json), and REPORT.md opens with both readings side by side.\n"
    "Draws DIR/fig*.png and DIR/projection_fig*.png and writes\n"
    "DIR/report.json (a list of {figure, quantity, paper, ours, rel_error, note}) and\n"
    "DIR/REPORT.md: every number the paper states for these figures next to ours, the\n"
    "relative error, the reason for each difference, and the arithmetic where the paper\n"
    "contradicts itself. Reading 1 fits nothing to the paper. About a minute on 2\n"
    "cores; progress on stderr, the headline comparison on stdout.\n\n"
    "example:\n"
    "  prunex reproduce --out out/reproduce",
    reproduce_options(), run_reproduce});

}  // namespace
}  // namespace prunex::cli
