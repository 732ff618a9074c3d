// One outer iteration's local work on a rank, after the setup (train_setup.h): the local SGD
// steps with the strategies' hooks between backward and the optimiser step, and the test-set
// evaluation with the batch-norm statistics it needs.
#pragma once

#include <functional>

#include "workloads/train/train_setup.h"

namespace prunex {

// Local SGD steps of one outer iteration: --local-steps steps, or --local-epochs epochs;
// steps continue across epoch boundaries. after_backward runs between backward and the
// optimiser step (the proximal term of eq. 8, DDP's bucket waits, Top-K's exchange),
// after_step after it (masked retraining). Returns the mean training loss. Forward,
// backward and step time goes to local_compute; the hooks time themselves.
double run_local_steps(TrainSetup& s, PhaseClock& clock,
                       const std::function<void()>& after_backward,
                       const std::function<void()>& after_step = {});
// Steps run_local_steps takes per outer iteration on this rank.
int64_t steps_per_iteration(const TrainSetup& s);
// The seconds of one step's forward and backward pass on a batch of this rank's shard, timed
// before training for the run's first estimate: two passes, the second timed (the first
// carries the kernels' one-time set-up). In eval mode, gradients cleared after: the model,
// its batch-norm statistics and every random stream are as they were. Call it before a
// strategy registers gradient hooks (make_live_strategy).
double probe_step_seconds(TrainSetup& s);

// Batch-norm running statistics of a model, averaged over the world (so every rank
// evaluates the same model).
void average_bn_buffers(torch::nn::Module& model, Communicator& comm);
// Re-estimates batch-norm statistics for the weights now in `model` (used for z, whose
// pruned channels change the activations): cumulative averages over `batches` training
// batches of this rank, then averaged over the world.
void recalibrate_bn(torch::nn::Module& model, TrainSetup& s, Communicator& comm, int batches);

struct EvalResult {
  double loss = 0, accuracy = 0;
};
// Test loss and accuracy of `model` over the whole test set (each rank its part, summed).
EvalResult evaluate(torch::nn::Module& model, TrainSetup& s, Communicator& comm);

}  // namespace prunex
