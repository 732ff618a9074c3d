// One synchronisation strategy of the live trainer. The driver (trainer.cc) calls
// iterate() once per outer iteration, then evaluates eval_model(); everything a strategy
// reports about the iteration comes back in LocalIteration (this rank's view).
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/mask.h"
#include "engine/state_sections.h"
#include "engine/strategy.h"
#include "records/run_record.h"
#include "workloads/train/train_setup.h"

namespace prunex {

struct LocalIteration {
  double loss = 0;                             // mean training loss of this rank
  std::vector<LayerResiduals> residuals;       // per layout layer, this rank (may be empty)
  std::vector<std::pair<double, double>> rho;  // per layer (rho1, rho2) used
  std::map<std::string, double> density;       // pruned layer -> kept fraction of z
  // pruned layer -> kept fraction of the mask that compacted the inter-node payload
  std::map<std::string, double> payload_density;
  ModelMask payload_mask;        // hsadmm: that mask itself (the iteration's plan uses it)
  bool frozen = false;           // mask frozen after this iteration
  bool converged = false;        // stopping test passed (all ranks agree)
  double dense_inter_bytes = 0;  // inter tier without shrinkage
};

class LiveStrategy {
 public:
  virtual ~LiveStrategy() = default;
  virtual LocalIteration iterate(int k, PhaseClock& clock) = 0;
  // The model whose test accuracy is reported (H-SADMM: the global z), ready to evaluate.
  virtual torch::nn::Module& eval_model() = 0;
  // The global structured masks of the pruned layers ({"layers": {name: {shape, keep_out,
  // keep_in}}}, analysis/plots/README.md), or null for strategies without masks.
  virtual nlohmann::json masks() const { return nullptr; }
  // Checkpoints (workloads/train/train_checkpoint.h): what the strategy keeps from one outer
  // iteration to the next beyond the model and the optimiser, as named sections.
  virtual void save_state(StateSections& /*s*/) const {}
  virtual void load_state(const StateSections& /*s*/) {}
  // A resume on another shape (docs/training.md): every rank loaded rank 0's sections; the
  // state that was each rank's own (error feedback, H-SADMM's node variables and duals)
  // starts again as at a fresh start, from the model the run had reached.
  virtual void restart_rank_state() {}
};

// strategy: hsadmm, hsadmm_flat or hsadmm_rail.
std::unique_ptr<LiveStrategy> make_hsadmm(TrainSetup& s, Communicator& comm, Strategy strategy);
// ddp, fp16, pactrain and cgx: DDP's bucket reducer (ddp_strategy.cc) with the strategy's codec
// (bucket_codec.h).
std::unique_ptr<LiveStrategy> make_ddp(TrainSetup& s, Communicator& comm);
std::unique_ptr<LiveStrategy> make_topk(TrainSetup& s, Communicator& comm);
// The strategy s.cfg.strategy names, its payload on comm (every strategy keeps its payload
// in comm's memory space: the data communicator's, the GPU under --backend nccl).
std::unique_ptr<LiveStrategy> make_live_strategy(TrainSetup& s, Communicator& comm);

}  // namespace prunex
