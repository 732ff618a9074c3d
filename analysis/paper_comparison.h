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
#include "engine/types.h"

namespace prunex {

// nccl-tests bus bandwidth: all-reduce 2(n-1)/n x bytes / time, broadcast bytes / time.
inline double bus_bandwidth(double bytes, int n, double seconds, bool allreduce) {
  const double factor = allreduce ? 2.0 * (n - 1) / n : 1.0;
  return factor * bytes / seconds;
}

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

// The paper's communication at 16 x 4 as collectives with its times (reproduce's second
// reading takes them as a calibration): H-SADMM's intra-node all-reduce, broadcast and the
// leaders' all-reduce at their Fig. 8 shares of its 0.10 s (Fig. 7), on the bytes our run moves
// in them; DDP's dense world all-reduce at its 0.50 s, read as one step's all-reduce or
// (ddp_per_epoch) as an epoch's.
struct PaperTransfer {
  std::string what;
  CollectiveOp op = CollectiveOp::allreduce;
  Group group = Group::world;
  int nodes = 1, gpus_per_node = 1;
  double bytes = 0, seconds = 0;
};
std::vector<PaperTransfer> paper_transfers(const CommRuns& runs, bool ddp_per_epoch);

// A rate the paper's times imply (reproduce's second reading), as the calibration priced it.
struct PaperRate {
  PaperTransfer transfer;
  std::string key;      // the calibration's op/group
  double link_Bps = 0;  // the topology's per-hop link for it
  double rate_Bps = 0;  // the calibrated op's rate on that link
};

// Reproduce's second reading: Fig. 9 at the paper's rates (scaling.json of hsadmm,
// hsadmm-flat, ddp, topk at E = 1, hsadmm at E = alt_epochs, and ddp with its 0.50 s read per
// epoch), beside the first reading (the fig9 scalings at the topology's rates).
struct PaperRatesRuns {
  Doc scaling, scaling_alt, scaling_ddp_epoch;  // at the paper's rates
  Doc hardware, hardware_alt;                   // reading 1
  int alt_epochs = 5;
  std::vector<PaperRate> rates, rates_ddp_epoch;
};
Section compare_fig9_paper_rates(const PaperRatesRuns& runs);
// REPORT.md's opening: the two readings side by side and where H-SADMM wins in each.
std::string two_readings_markdown(const PaperRatesRuns& runs);

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
