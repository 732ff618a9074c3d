#include "apps/reproduce_steps.h"

#include "calibration/rate_calibration.h"
#include "engine/communicator.h"
#include "records/run_record.h"
#include "topologies/topology_io.h"

namespace prunex::cli {
namespace {

std::string gpu_list(int from, int to) {
  std::string s;
  for (int g = from; g <= to; g *= 2) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

// The options every run of the figures takes: the cluster, the iterations, the platform
// (the calibration given to reproduce, or `calibration` in its place when not empty).
std::vector<std::string> common_args(const ReproduceOptions& o,
                                     const std::string& calibration = "") {
  std::vector<std::string> a = {"--topology",      o.topology_arg,
                                "--gpus-per-node", std::to_string(o.gpus_per_node),
                                "--iterations",    std::to_string(o.iterations),
                                "--t-freeze",      std::to_string(o.t_freeze),
                                "--algo",          o.algo};
  for (std::size_t i = 0; i + 1 < o.platform_args.size(); i += 2)
    if (calibration.empty() || o.platform_args[i] != "--calibration")
      a.insert(a.end(), {o.platform_args[i], o.platform_args[i + 1]});
  if (!calibration.empty()) a.insert(a.end(), {"--calibration", calibration});
  return a;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& base) {
  a.insert(a.end(), base.begin(), base.end());
  return a;
}

}  // namespace

std::vector<Step> paper_rates_steps(const ReproduceOptions& o) {
  const std::string alt = "fig9_sweep_e" + std::to_string(o.alt_local_epochs) + "_paper_rates";
  const auto rates = common_args(o, paper_rates_file(o, false));
  return {
      {"fig9_sweep_paper_rates",
       with({"sweep", "--model", "resnet152", "--gpus", "8,16,32,64", "--strategy",
             "hsadmm,hsadmm-flat,ddp,topk", "--out", run_path(o, "fig9_sweep_paper_rates")},
            rates)},
      {alt, with({"sweep", "--model", "resnet152", "--gpus", "8,16,32,64", "--strategy", "hsadmm",
                  "--local-epochs", std::to_string(o.alt_local_epochs), "--out", run_path(o, alt)},
                 rates)},
      {"fig9_sweep_paper_rates_ddp_per_epoch",
       with({"sweep", "--model", "resnet152", "--gpus", "8,16,32,64", "--strategy", "ddp", "--out",
             run_path(o, "fig9_sweep_paper_rates_ddp_per_epoch")},
            common_args(o, paper_rates_file(o, true)))},
  };
}

std::vector<PaperRate> write_paper_rates(const ReproduceOptions& o, bool ddp_per_epoch) {
  std::vector<sim::TargetTime> targets;
  const auto transfers = paper_transfers(read_comm_runs(o), ddp_per_epoch);
  for (const auto& t : transfers)
    targets.push_back({t.what, t.op, t.group, t.nodes, t.gpus_per_node, t.bytes, t.seconds});
  std::vector<sim::RateFit> fits;
  sim::Calibration cal = sim::calibration_from_times(
      o.simulated, targets,
      "the PruneX paper's times (Figs. 7-8: 0.10 s x its shares for H-SADMM, 0.50 s for DDP "
      "read per " +
          std::string(ddp_per_epoch ? "epoch" : "step") + ") on the bytes of " + runs_dir(o) +
          "/resnet152_*",
      &fits);
  cal.ops[sim::op_cost_key(CollectiveOp::allgather, Group::world)] =
      cal.ops.at(sim::op_cost_key(CollectiveOp::allreduce, Group::world));
  std::vector<sim::FittedPoint> points;
  std::vector<PaperRate> rates;
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const auto& t = targets[i];
    const int ranks = NodeGrouping{t.nodes * t.gpus_per_node, t.gpus_per_node}.group_size(t.group);
    sim::FittedPoint p;
    p.point = {"paper", t.op, t.group, t.nodes, t.gpus_per_node, ranks, t.bytes, t.seconds};
    p.predicted_s = t.seconds;
    p.fitted = true;
    points.push_back(p);
    rates.push_back({transfers[i], sim::op_cost_key(t.op, t.group), fits[i].link_Bps,
                     fits[i].fit.bandwidth_Bps});
  }
  write_file_atomic(paper_rates_file(o, ddp_per_epoch),
                    sim::calibration_json(cal, points).dump(2) + "\n");
  return rates;
}

std::vector<Step> simulation_steps(const ReproduceOptions& o) {
  const std::vector<std::string> common = common_args(o);
  const std::string nodes64 = std::to_string(64 / o.gpus_per_node);
  std::vector<Step> s;
  s.push_back(
      {"fig9_sweep", with({"sweep", "--model", "resnet152", "--gpus", "8,16,32,64", "--strategy",
                           "hsadmm,hsadmm-flat,ddp,topk,fp16,pactrain,cgx,powersgd", "--out",
                           run_path(o, "fig9_sweep")},
                          common)});
  s.push_back({"fig9_sweep_e" + std::to_string(o.alt_local_epochs),
               with({"sweep", "--model", "resnet152", "--gpus", "8,16,32,64", "--strategy",
                     "hsadmm", "--local-epochs", std::to_string(o.alt_local_epochs), "--out",
                     run_path(o, "fig9_sweep_e" + std::to_string(o.alt_local_epochs))},
                    common)});
  for (const char* st : {"hsadmm", "hsadmm-flat", "ddp"})
    s.push_back({std::string("resnet152_") + st,
                 with({"simulate", "--model", "resnet152", "--strategy", st, "--nodes", nodes64,
                       "--out", run_path(o, std::string("resnet152_") + st)},
                      common)});
  for (const auto& m : fig6_models()) {
    if (m == "resnet152") continue;  // the Fig. 7 run
    s.push_back({m + "_hsadmm", with({"simulate", "--model", m, "--strategy", "hsadmm", "--nodes",
                                      nodes64, "--out", run_path(o, m + "_hsadmm")},
                                     common)});
  }
  if (o.max_gpus == 0) return s;

  const std::string G = std::to_string(o.max_gpus);
  s.push_back({"projection_sweep",
               with({"sweep", "--model", "resnet152", "--gpus", gpu_list(8, o.max_gpus),
                     "--strategy", "hsadmm,ddp,topk", "--out", run_path(o, "projection_sweep")},
                    common)});
  for (const auto& g : o.growth)
    s.push_back({"projection_sweep_" + growth_tag(g),
                 with({"sweep", "--model", "resnet152", "--gpus", gpu_list(8, o.max_gpus),
                       "--strategy", "hsadmm", "--union-growth", g, "--out",
                       run_path(o, "projection_sweep_" + growth_tag(g))},
                      common)});
  // Two iterations (the first with the mask union, the second frozen) keep the per-rank
  // records of thousands of ranks small; every iteration of a plan is the same.
  std::vector<std::string> big = {"--topology",      o.topology_arg,
                                  "--gpus-per-node", std::to_string(o.gpus_per_node),
                                  "--nodes",         std::to_string(o.max_gpus / o.gpus_per_node),
                                  "--iterations",    "2",
                                  "--t-freeze",      "1",
                                  "--algo",          o.algo,
                                  "--model",         "resnet152"};
  big.insert(big.end(), o.platform_args.begin(), o.platform_args.end());
  // Folders named so that the figures' labels stay short (plots fall back to folder names).
  const std::string dir = "projection_" + G + "/";
  s.push_back({"projection_" + G + "_hsadmm",
               with({"simulate", "--strategy", "hsadmm", "--out", run_path(o, dir + "g0")}, big)});
  for (const auto& g : o.growth)
    s.push_back({"projection_" + G + "_hsadmm_" + growth_tag(g),
                 with({"simulate", "--strategy", "hsadmm", "--union-growth", g, "--out",
                       run_path(o, dir + growth_tag(g))},
                      big)});
  s.push_back({"projection_" + G + "_ddp",
               with({"simulate", "--strategy", "ddp", "--out", run_path(o, dir + "ddp")}, big)});
  return s;
}

}  // namespace prunex::cli
