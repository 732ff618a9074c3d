// PacTrain's pruning, once before training (engine/pactrain.h): rank 0 scores every conv and
// fc weight (magnitude |w|, or GraSP's -w * Hg over 4 batches of its shard), removes the
// round(ratio x numel) entries each layer can spare most, and broadcasts the masks; every
// rank zeroes the pruned weights. LibTorch code: include only from workloads/train/*.cc.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "engine/communicator.h"
#include "workloads/train/train_setup.h"

namespace prunex {

// Per layout layer: a float 0/1 mask of the weight's shape, or an undefined tensor for layers
// that are not pruned. Applies the masks to s.params. comm moves host memory (s.control()).
std::vector<torch::Tensor> pactrain_prune(TrainSetup& s, Communicator& comm);

// --init: rank 0 reads the newest checkpoint of a ddp run (load_init_model), and every rank
// takes its verdict (UsageError on all alike) and then its model (one checkpoint, one model
// on every rank, even if the folder changes or is not visible to every node). Returns the
// checkpoint's iteration.
int pactrain_init_model(TrainSetup& s, Communicator& comm);

constexpr int kGraspBatches = 4;

}  // namespace prunex
