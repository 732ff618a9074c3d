// `prunex reproduce`: the pieces shared by the command (apps/cmd_reproduce.cc: options, the
// list of prunex commands it runs) and the report it writes (analysis/reproduction_report.cc).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/paper_comparison.h"
#include "topologies/topology.h"

namespace prunex {

struct ReproduceOptions {
  std::string out = "out/reproduce";
  std::string topology_arg = "puhti";  // as given: a preset name or a file
  Topology topology;
  int gpus_per_node = 4;
  int iterations = 60;
  int t_freeze = 15;
  int alt_local_epochs = 5;  // the second Fig. 9 curve for hsadmm
  Topology simulated;        // the topology as the runs simulate it (link what-ifs, achieved rates)
  int max_gpus = 4096;       // 0: no projection
  std::string algo = "nccl";  // the collectives' algorithm (simulate --algo): NCCL's own pick
  // The simulated platform's other options as given ("--name", "value", ...): every run gets
  // them.
  std::vector<std::string> platform_args;
  std::vector<std::string> growth = {"0.001", "0.01"};  // projection union growths, as typed
  std::string command_line;                             // how this run was invoked, for the report
};

// One prunex invocation (arguments after "prunex"); its output goes to logs/<name>.log.
struct Step {
  std::string name;
  std::vector<std::string> args;
  double seconds = 0;  // measured
};

// Folders under OUT.
inline std::string runs_dir(const ReproduceOptions& o) {
  return o.out + "/runs";
}
inline std::string run_path(const ReproduceOptions& o, const std::string& name) {
  return runs_dir(o) + "/" + name;
}
inline std::string growth_tag(const std::string& g) {
  return "g" + g;
}

// Models of Fig. 6, in the paper's order.
inline const std::vector<std::string>& fig6_models() {
  static const std::vector<std::string> m = {"resnet18", "wide_resnet50_2", "resnet152"};
  return m;
}

// Reading 2's calibrations (the paper's rates) and the sweep folders that ran with them.
inline std::string paper_rates_file(const ReproduceOptions& o, bool ddp_per_epoch) {
  return runs_dir(o) + (ddp_per_epoch ? "/paper_rates_ddp_per_epoch.json" : "/paper_rates.json");
}

// The Figs. 7-8 runs (ResNet-152 on 16 x 4), read from OUT/runs/.
CommRuns read_comm_runs(const ReproduceOptions& o);

// Reads the runs, compares them with the paper, writes OUT/report.json and OUT/REPORT.md
// (each atomically) and prints the headline rows on stdout. `rates`: reading 2's calibrated
// rates (DDP's 0.50 s per step, and per epoch).
// `elapsed` gives the seconds since the command started (read once the report is built).
void write_reproduction_report(const ReproduceOptions& o, const std::vector<Step>& steps,
                               const std::vector<std::string>& figures,
                               const std::vector<PaperRate>& rates,
                               const std::vector<PaperRate>& rates_ddp_epoch,
                               const std::function<double()>& elapsed);

}  // namespace prunex
