// Test helper: the union of node masks (eq. 14) over NCCL, a use of the communicator the tests
// exercise (the consensus unites masks through its ConsensusMath): every pruned layer's mask
// in the one-byte-per-group form (tests/nccl/mask_bytes.h), all layers in one buffer, one MAX
// all-reduce over uint8.
#pragma once

#include "backends/nccl/nccl_communicator.h"
#include "engine/mask.h"

namespace prunex {

// Replaces `mask` by the union over the members of group g (normalised). Collective.
void unite_masks_nccl(NcclCommunicator& comm, ModelMask& mask, Group g);

}  // namespace prunex
