// The options of `prunex simulate` (and sweep, reproduce): one table, each option with its
// metavariable, help text, parser with bounds and recorded value (simulate_config.h).
#include <algorithm>
#include <string>

#include "engine/text_parse.h"
#include "engine/wire_dtype.h"
#include "settings/run_fields.h"
#include "simulate/platform_fields.h"
#include "simulate/simulate_config.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"
#include "workloads/data/dataset_spec.h"

namespace prunex::sim {
namespace {

using C = SimulateConfig;
using fields::kMaxCount;

SimulateField text(std::string name, std::string vn, std::string help, std::string C::*m,
                   bool required = false) {
  return fields::text<C>(std::move(name), std::move(vn), std::move(help), m, required);
}
SimulateField integer(std::string name, std::string vn, std::string help, int C::*m, long lo,
                      long hi) {
  return fields::whole<C>(std::move(name), std::move(vn), std::move(help), m, lo, hi);
}
SimulateField long_integer(std::string name, std::string vn, std::string help, long C::*m, long lo,
                           long hi) {
  return fields::whole<C>(std::move(name), std::move(vn), std::move(help), m, lo, hi);
}
SimulateField boolean(std::string name, std::string help, bool C::*m) {
  return fields::boolean<C>(std::move(name), std::move(help), m);
}
SimulateField real(std::string name, std::string vn, std::string help, double C::*m, double lo,
                   double hi, bool open_low) {
  return fields::real<C>(std::move(name), std::move(vn), std::move(help), m, lo, hi, open_low);
}

// The cluster and the workload: topology, shape, input, samples, masks.
std::vector<SimulateField> shape_fields() {
  return {
      text("topology", "NAME|FILE", "cluster preset or topology JSON file (required)", &C::topology,
           true),
      integer("nodes", "M", "nodes (0: the topology's; more than it has: scaled out)", &C::nodes, 0,
              kMaxScaledNodes),
      integer("gpus-per-node", "P", "GPUs per node (0: the topology's; at most the topology's)",
              &C::gpus_per_node, 0, 1 << 20),
      {"dataset", "D",
       "the data set whose shape the workload takes: cifar10, fashion-mnist or imagenet (sets "
       "--input, --input-channels, --classes and --samples, which override it when given)",
       [](C& c, const std::string& v) {
         const DatasetSpec d = dataset_shape(v);
         c.input = d.image_size;
         c.input_channels = d.channels;
         c.classes = d.classes;
         c.samples = static_cast<long>(d.train_samples);
       },
       [](const C& c) {
         const std::string name = shaped_dataset_of(c);
         return name.empty() ? nlohmann::json() : nlohmann::json(name);
       }},
      integer("input", "N", "input size (square)", &C::input, 1, kMaxCount),
      integer("input-channels", "N", "input channels (3 for CIFAR-10, 1 for Fashion-MNIST)",
              &C::input_channels, 1, kMaxCount),
      boolean("ddp-overlap",
              "ddp: start a bucket's all-reduce during backward (false: after it, as a live run "
              "with --sync-phases)",
              &C::ddp_overlap),
      long_integer(
          "samples", "N",
          "training samples per epoch (CIFAR-10: 50000; ImageNet: 1281167); each GPU's shard caps "
          "an epoch's step, and --local-steps needs a full batch in it",
          &C::samples, 1, kMaxCount),
      real("union-growth", "G",
           "probability that a node keeps a group another node pruned, [0, 1]: the union of M "
           "node masks keeps 1 - (1 - keep)(1 - G)^(M-1) of the groups (0: nodes agree; keep: "
           "independent)",
           &C::union_growth, 0, 1, false),
      text("masks", "FILE",
           "metrics.json of a live hsadmm run: its last global mask densities (hsadmm: each "
           "iteration's payload mask, replayed)",
           &C::masks),
  };
}

// The model's mechanisms, each checked against published measurements (docs/simulation.md).
std::vector<SimulateField> mechanism_fields() {
  return {
      real("interference", "X",
           "compute runs X times slower while a collective overlaps it (DDP's buckets during "
           "backward; NVIDIA/nccl#1428 measured a GEMM at 1.76x beside NCCL); 1: none",
           &C::interference, 1, 100, false),
      real("ddp-overhead-passes", "P",
           "ddp and the bucketed peers: the framework's per-step overhead as P passes over the "
           "fp32 gradients at memory bandwidth (PyTorch 1.4 DDP on a V100: 26.4, fitted on "
           "resnet50's 0.097 s without and 0.100 s with DDP); 0: none (prunex's own trainer)",
           &C::ddp_overhead_passes, 0, 1e6, false),
      real("sync-skew", "CV",
           "each rank's compute between synchronisations varies at random (normal, "
           "independent per local step) with this standard deviation as a fraction of its "
           "mean, and the first collective after compute waits for the last of the world's n "
           "ranks: CV x e(n) x that compute / sqrt(local steps), e(n) the expected maximum of n "
           "standard normals (1.42 at 8, 3.25 at 1024); the default is fitted on "
           "DeepLearningExamples' MXNet ResNet-50 tables (scripts/fits/fit_sync_skew.sh); 0: none",
           &C::sync_skew, 0, 1, false),
      real("horovod-cycle-ms", "MS",
           "ddp and fp16 as Horovod runs them: its background thread starts the all-reduces of "
           "the gradients that became ready once per cycle (HOROVOD_CYCLE_TIME: 5 ms in Horovod "
           "0.13.3-0.20, 1 ms from 0.21), so each bucket waits half a cycle on average; not at "
           "1 GPU, where Horovod does not all-reduce; 0: none (PyTorch DDP)",
           &C::horovod_cycle_ms, 0, 1e6, false),
      real(
          "step-overhead-ms", "MS",
          "each local step costs MS more that do not shrink with the batch (kernel launches, "
          "kernels too small to fill the GPU), in proportion over forward and backward; the "
          "GPU speed alone makes a step's compute proportional to its batch, which small "
          "batches per GPU (strong scaling) beat. ResNet-50 on a V100 under PyTorch: about "
          "12 ms (scripts/fits/fit_step_overhead.sh: the suite's one-GPU rows at batch 32 to 128), "
          "MLPerf's tuned stacks 0.4-28.5 ms (results/published/README.md); a --calibration "
          "fitted from runs at two batch sizes brings its own; 0: none",
          &C::step_overhead_ms, 0, 1e6, false),
      {"precision", "P",
       "the GPU's arithmetic: fp32 (the topology's fp32 peak x efficiency), tf32 (its "
       "gpu.tf32_tflops x tf32_efficiency: A100 and later) or amp (automatic mixed precision: "
       "gpu.fp16_tflops x amp_efficiency, fp32 master weights; the gradients travel as the "
       "strategy sends them, ddp fp32 as PyTorch's AMP, fp16 halved)",
       [](C& c, const std::string& v) { c.precision = parse_precision(v); },
       [](const C& c) { return nlohmann::json(precision_name(c.precision)); }},
      {"compute-cost", "M",
       "flops (3 x the model's forward FLOPs at the GPU's effective FLOP/s) or layers (the "
       "convolutions and linear layers at that speed, batch norms and ReLUs as passes over "
       "their outputs at memory bandwidth, 2 bytes a value under --precision amp)",
       [](C& c, const std::string& v) {
         PRUNEX_USAGE(v == "flops" || v == "layers", "unknown compute cost '", v,
                      "' (flops, layers)");
         c.compute_cost = v;
       },
       [](const C& c) { return nlohmann::json(c.compute_cost); }},
  };
}

// What-if studies: stragglers, degraded NICs, failures and checkpoints.
std::vector<SimulateField> what_if_fields() {
  return {
      text("straggler-gpus", "LIST",
           "what-if: these GPUs (world ranks, comma-separated) compute --straggler-factor "
           "times slower",
           &C::straggler_gpus),
      real("straggler-fraction", "F",
           "what-if: this fraction of the GPUs, drawn with --straggler-seed, computes "
           "--straggler-factor times slower (at least one GPU when > 0)",
           &C::straggler_fraction, 0, 1, false),
      real("straggler-factor", "X", "a straggler's compute takes X times as long (>= 1)",
           &C::straggler_factor, 1, 1e6, false),
      long_integer("straggler-seed", "N", "seed of the --straggler-fraction draw",
                   &C::straggler_seed, 0, kMaxCount),
      text("degrade-nic", "SPEC,...",
           "what-if: NIC rails at a fraction of their bandwidth, NODE[:RAIL]=FRACTION,... "
           "(no rail: every rail of the node)",
           &C::degrade_nic),
      real("mtbf-hours", "H",
           "what-if: mean time between failures of one node (exponential, independent); the "
           "run reports its expected time to train with checkpoints (0: no failures)",
           &C::mtbf_hours, 0, 1e9, false),
      real("checkpoint-minutes", "T",
           "compute time between checkpoints (0: Daly's optimum interval)", &C::checkpoint_minutes,
           0, 1e9, false),
      real("checkpoint-seconds", "S", "time to write one checkpoint (with --mtbf-hours)",
           &C::checkpoint_seconds, 0, 1e9, false),
      real("restart-seconds", "S", "time to restart from a checkpoint (with --mtbf-hours)",
           &C::restart_seconds, 0, 1e9, false),
  };
}

}  // namespace

const std::vector<SimulateField>& simulate_fields() {
  static const std::vector<SimulateField> fields = [] {
    std::vector<SimulateField> f = shape_fields();
    // The settings train shares, declared once (settings/run_fields.h), after the data set,
    // which sets --classes: a flag given beside it applies after it.
    const auto shared = fields::shared_run_fields<C>();
    const auto dataset = std::find_if(f.begin(), f.end(),
                                      [](const SimulateField& x) { return x.name == "dataset"; });
    f.insert(dataset + 1, shared.begin(), shared.end());
    // The simulated platform, declared once (platform_fields.h) for every command.
    for (const auto& pf : platform_fields()) f.push_back(fields::base_field<C>(pf));
    for (auto group : {mechanism_fields(), what_if_fields()})
      f.insert(f.end(), group.begin(), group.end());
    f.push_back(text("out", "DIR", "output folder", &C::out, true));
    return f;
  }();
  return fields;
}

}  // namespace prunex::sim
