#include "tests/nccl/nccl_mask_union.h"

#include "tests/nccl/mask_bytes.h"

namespace prunex {

void unite_masks_nccl(NcclCommunicator& comm, ModelMask& mask, Group g) {
  std::vector<uint8_t> bytes = mask_to_group_bytes(mask);
  if (bytes.empty()) return;  // nothing pruned: every rank has the same (dense) masks
  DeviceArray<uint8_t> dev(bytes);
  // For 0/1 bytes MAX is OR; NCCL has no OR.
  comm.allreduce(dev.data(), dev.size(), DType::u8, ReduceOp::max, g);
  bytes = dev.download();
  mask_from_group_bytes(mask, bytes.data(), bytes.size());
}

}  // namespace prunex
