// The comparison `prunex reproduce` writes: for each of the paper's communication figures
// (Figs. 6-9, section 5.3-5.4) the rows paper vs ours with a note per difference, and the
// arithmetic that shows where the paper disagrees with itself; then the same figures
// projected beyond the paper. Inputs are the records the simulations wrote (metrics.json,
// trace.json, scaling.json), each with its path for error messages; the paper's numbers
// come from analysis/paper_numbers.h. No torch, SimGrid or MPI here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/payload_arithmetic.h"
#include "analysis/report_rows.h"

namespace prunex {

struct Doc {
  nlohmann::json json;
  std::string path;
};
Doc read_doc(const std::string& path);

struct Section {
  std::string figure;  // rows' figure, e.g. "Fig. 9"
  std::string title;
  std::string intro;  // Markdown before the table
  std::vector<ReportRow> rows;
  std::string text;  // Markdown after the table
};

// Fig. 9: scaling.json of hsadmm, hsadmm-flat, ddp, topk at E = 1 from 8 to 64 GPUs, and of
// hsadmm at E = alt_epochs.
Section compare_fig9(const Doc& scaling, const Doc& scaling_alt, int alt_epochs);

// Figs. 7 and 8: metrics.json of hsadmm, hsadmm-flat and ddp (resnet152, 16 x 4) and the
// ddp trace.json.
struct CommRuns {
  Doc hsadmm, flat, ddp, ddp_trace;
};
Section compare_fig7(const CommRuns& runs);
Section compare_fig8(const CommRuns& runs);

// Fig. 6: per model the hsadmm metrics.json (16 x 4), the resnet152 ddp run for DDP's own
// traffic, and the payload arithmetic of the exact layer tables.
struct ModelPayloads {
  std::string model;
  Payload keep_half;  // channel keep 0.5 (the paper's primary configuration)
  KeepForFraction channel, filter, filter_channel;  // keep rates that reach 40%
};
Section compare_fig6(const std::map<std::string, Doc>& hsadmm_by_model, const Doc& ddp,
                     const std::vector<ModelPayloads>& payloads);

// Beyond the paper: strong scaling from 8 to max_gpus (hsadmm, ddp, topk with nodes that
// agree; hsadmm per union growth g), and Figs. 6-8 quantities at max_gpus.
struct ProjectionRuns {
  int max_gpus = 0;
  Doc scaling;                               // hsadmm, ddp, topk; g = 0
  std::map<std::string, Doc> growth;         // g text -> scaling.json of hsadmm
  Doc hsadmm;                                // metrics.json at max_gpus, g = 0
  std::map<std::string, Doc> hsadmm_growth;  // g text -> metrics.json at max_gpus
  Doc ddp, ddp_trace;                        // at max_gpus
};
Section compare_projection(const ProjectionRuns& runs);

// The whole REPORT.md body for these sections (title, intro, table, text each).
std::string sections_markdown(const std::vector<Section>& sections);

}  // namespace prunex
