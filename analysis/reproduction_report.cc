// The report of `prunex reproduce`: reads the records its commands wrote, builds the
// comparison (analysis/paper_comparison.h) and writes OUT/report.json and OUT/REPORT.md.
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "analysis/paper_comparison.h"
#include "analysis/paper_numbers.h"
#include "analysis/reproduction.h"
#include "engine/sparsity_spec.h"
#include "records/run_record.h"
#include "settings/config_fields.h"
#include "topologies/topology_summary.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

Doc metrics_of(const ReproduceOptions& o, const std::string& run) {
  return read_doc(run_path(o, run) + "/metrics.json");
}

std::vector<ModelPayloads> payload_arithmetic() {
  std::vector<ModelPayloads> out;
  for (const auto& m : fig6_models()) {
    const ModelLayout layout = make_layout(m);
    ModelPayloads p;
    p.model = m;
    p.keep_half = compact_payload(layout, kChannel, paper::kChannelKeep);
    p.channel = keep_for_fraction(layout, kChannel, paper::kStableFraction);
    p.filter = keep_for_fraction(layout, kFilter, paper::kStableFraction);
    p.filter_channel = keep_for_fraction(layout, kFilter | kChannel, paper::kStableFraction);
    out.push_back(p);
  }
  return out;
}

// The quantities of reading 1 for the headline table and its verdict.
bool headline(const ReportRow& r) {
  static const std::set<std::string> names = {
      "speedup_64_hsadmm",     "speedup_64_ddp",     "speedup_64_topk",
      "comm_latency_hsadmm_s", "comm_latency_ddp_s", "share_inter_allreduce",
      "share_intra_allreduce", "share_broadcast",    "message_fraction_resnet152_hsadmm"};
  return names.count(r.quantity) > 0 || r.quantity.rfind("volume_gb_", 0) == 0;
}

// Reading 2's Fig. 9 speedups, shown in the headline table after reading 1's rows.
bool headline_reading2(const ReportRow& r) {
  static const std::set<std::string> names = {"speedup_64_hsadmm_at_paper_rates",
                                              "speedup_64_ddp_at_paper_rates",
                                              "speedup_64_topk_at_paper_rates"};
  return names.count(r.quantity) > 0;
}

// What the headline rows say, before them: how many of the paper's numbers ours meet within
// 10%, within 30%, and which miss by more (each section below gives the reason).
std::string verdict_markdown(const std::vector<ReportRow>& rows) {
  std::vector<std::string> close, near, far;
  for (const auto& r : rows) {
    if (!headline(r) || !r.paper) continue;
    const double e = std::abs(*r.rel_error());
    (e <= 0.10 ? close : e <= 0.30 ? near : far).push_back("`" + r.quantity + "`");
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return v.empty() ? std::string("none") : s;
  };
  const std::size_t n = close.size() + near.size() + far.size();
  return fmt::format(
      "## Verdict (reading 1: the hardware's rates)\n\nOf the {} headline numbers the paper "
      "states, {} are within 10% of ours "
      "({}), {} within 30% ({}), and {} differ by more ({}). The section of each figure below "
      "says why a number differs; the paper's values are the `paper` column of every table "
      "there.\n\n",
      n, close.size(), list(close), near.size(), list(near), far.size(), list(far));
}

std::string setup_markdown(const ReproduceOptions& o, const Doc& hs) {
  const nlohmann::json c = canonical_config(hs.json.at("config"));
  const auto& cal = c.at("compute-calibration");
  std::string s = "## Setup\n\n";
  s += fmt::format(
      "- Cluster: topology `{}` ({} GPUs per node), network model `{}` (SimGrid 3.32), "
      "collectives `--algo {}` ({}), rings NCCL-style with one channel per rail; every value "
      "of the topology and its source is listed at the end.\n",
      o.topology.name, o.gpus_per_node, c.at("network-model-description").get<std::string>(),
      o.algo,
      o.algo == "nccl" ? "ring or tree per collective, whichever NCCL's tuning model, v2.25.1, "
                         "predicts faster, as NCCL picks"
                       : "every collective so");
  s += fmt::format(
      "- Work: ResNet-152 ({} parameters, {:.4f} GFLOPs forward per 32x32 sample), CIFAR-10 "
      "({} training samples), batch {} per GPU; compute = 3 x forward FLOPs per sample at "
      "{:.3g} TFLOP/s per {} (efficiency {} of fp32 peak: \"{}\").\n",
      c.at("parameters").get<long long>(), c.at("forward-gflops-per-sample").get<double>(),
      c.at("samples").get<long>(), c.at("batch").get<int>(),
      cal.at("effective_flops").get<double>() / 1e12, cal.at("gpu").get<std::string>(),
      cal.at("efficiency").get<double>(), cal.at("source").get<std::string>());
  s += fmt::format(
      "- H-SADMM: channel keep {} on every convolution but the first, union growth g = 0 (nodes "
      "agree), masks at the keep rate from the first iteration, mask union every iteration "
      "until it freezes after iteration {} (section 4.5: drift ends \"within the first 5-15 "
      "iterations\"), {} outer iterations of E = 1 local epoch, {} MiB inter-node buckets. "
      "DDP: 25 MiB buckets (first 1 MiB) overlapped with backward. Top-K: 1% per layer, values "
      "and indices in one all-gather.\n",
      c.at("keep").get<double>(), o.t_freeze, o.iterations, c.at("bucket-mib").get<double>());
  s += "- Paper numbers: section 5.3-5.4 and the captions of Figs. 6-9 of the PruneX paper "
       "(Olama et al., 2025), as printed; hardware references: the sources the table names "
       "and those of the topology (--topology " +
       o.topology_arg +
       "). Relative error = |ours - paper| / |paper|. No parameter was chosen by comparing with "
       "the paper.\n\n";
  return s;
}

}  // namespace

CommRuns read_comm_runs(const ReproduceOptions& o) {
  return {metrics_of(o, "resnet152_hsadmm"), metrics_of(o, "resnet152_hsadmm-flat"),
          metrics_of(o, "resnet152_ddp"), read_doc(run_path(o, "resnet152_ddp") + "/trace.json")};
}

void write_reproduction_report(const ReproduceOptions& o, const std::vector<Step>& steps,
                               const std::vector<std::string>& figures,
                               const std::vector<PaperRate>& rates,
                               const std::vector<PaperRate>& rates_ddp_epoch,
                               const std::function<double()>& elapsed) {
  const std::string alt = "fig9_sweep_e" + std::to_string(o.alt_local_epochs);
  auto scaling = [&](const std::string& run) {
    return read_doc(run_path(o, run) + "/scaling.json");
  };
  PaperRatesRuns two{scaling("fig9_sweep_paper_rates"),
                     scaling(alt + "_paper_rates"),
                     scaling("fig9_sweep_paper_rates_ddp_per_epoch"),
                     scaling("fig9_sweep"),
                     scaling(alt),
                     o.alt_local_epochs,
                     rates,
                     rates_ddp_epoch};
  std::vector<Section> sections;
  sections.push_back(compare_fig9(two.hardware, two.hardware_alt, o.alt_local_epochs));
  sections.push_back(compare_fig9_paper_rates(two));
  const CommRuns comm = read_comm_runs(o);
  sections.push_back(compare_fig7(comm));
  sections.push_back(compare_fig8(comm));
  std::map<std::string, Doc> by_model;
  for (const auto& m : fig6_models()) by_model[m] = metrics_of(o, m + "_hsadmm");
  sections.push_back(compare_fig6(by_model, comm.ddp, payload_arithmetic()));
  if (o.max_gpus != 0) {
    ProjectionRuns p;
    p.max_gpus = o.max_gpus;
    const std::string dir = "projection_" + std::to_string(o.max_gpus) + "/";
    p.scaling = read_doc(run_path(o, "projection_sweep") + "/scaling.json");
    for (const auto& g : o.growth) {
      p.growth[g] = read_doc(run_path(o, "projection_sweep_" + growth_tag(g)) + "/scaling.json");
      p.hsadmm_growth[g] = metrics_of(o, dir + growth_tag(g));
    }
    p.hsadmm = metrics_of(o, dir + "g0");
    p.ddp = metrics_of(o, dir + "ddp");
    p.ddp_trace = read_doc(run_path(o, dir + "ddp") + "/trace.json");
    sections.push_back(compare_projection(p));
  }

  std::vector<ReportRow> rows;
  for (const auto& s : sections) rows.insert(rows.end(), s.rows.begin(), s.rows.end());

  const double seconds = elapsed();
  std::string md =
      "# The PruneX paper's communication figures (6-9), reproduced on a modeled cluster\n\n";
  md += fmt::format("`{}` took {:.0f} s (`prunex` is `build/bin/prunex`).\n\n", o.command_line,
                    seconds);
  md += two_readings_markdown(two);
  md += verdict_markdown(rows);
  md += "## Headline\n\n| figure | quantity | paper | ours | rel. error |\n|---|---|---|---|---|\n";
  for (const auto& r : rows)
    if ((headline(r) || headline_reading2(r)) && r.paper)
      md += fmt::format("| {} | `{}` | {} | {} | {} |\n", r.figure, r.quantity, sig4(*r.paper),
                        sig4(r.ours), percent(*r.rel_error()));
  md +=
      "\nEvery row with its note, and the other readings of ambiguous quantities, are in the "
      "sections below and in report.json.\n\n";
  md += setup_markdown(o, comm.hsadmm);
  md += sections_markdown(sections);
  md += "## Figures\n\n";
  for (const auto& f : figures) md += "- `" + f + "`\n";
  md += "\nRecords (metrics.json, trace.json, scaling.json) are under `" + runs_dir(o) +
        "/`; `prunex plot` redraws any figure from them.\n\n## Commands\n\nRun in this order, "
        "each in its own process (logs in `" +
        o.out + "/logs/`):\n\n```\n";
  for (const auto& st : steps) {
    std::string line = "prunex";
    for (const auto& a : st.args) line += " " + a;
    md += fmt::format("{}    # {:.1f} s\n", line, st.seconds);
  }
  md += "```\n\n## Topology and the source of every value\n\n```\n" +
        describe_topology(o.topology) + "```\n";

  write_file_atomic(o.out + "/report.json", rows_json(rows).dump(2) + "\n");
  write_file_atomic(o.out + "/REPORT.md", md);

  std::printf("%-28s %-40s %8s %8s %8s\n", "figure", "quantity", "paper", "ours", "rel.err");
  for (const auto& r : rows)
    if ((headline(r) || headline_reading2(r)) && r.paper)
      std::printf("%-28s %-40s %8s %8s %8s\n", r.figure.c_str(), r.quantity.c_str(),
                  sig4(*r.paper).c_str(), sig4(r.ours).c_str(), percent(*r.rel_error()).c_str());
  std::printf("\nreproduce: %.0f s; wrote %s/REPORT.md and %s/report.json\nfigures:\n", seconds,
              o.out.c_str(), o.out.c_str());
  for (const auto& f : figures) std::printf("  %s\n", f.c_str());
}

}  // namespace prunex
