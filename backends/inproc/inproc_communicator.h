// The engine's Communicator with ranks as threads of one process (gloo's test pattern):
// engine-level tests run the real consensus, plans and strategies over it without mpirun.
// Collectives are computed exactly (sums in rank order) from the members' buffers; every call
// is recorded like the MPI and NCCL backends record theirs. It is a test transport, not a
// fast one: each collective is a rendezvous of the group's threads.
#pragma once

#include <functional>
#include <memory>

#include "engine/communicator.h"

namespace prunex {

class InProcessWorld;  // the state the ranks of one spawn() share

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<InProcessWorld> world, int world_rank);

  const NodeGrouping& grouping() const override;
  int world_rank() const override { return rank_; }
  MemorySpace memory_space() const override { return MemorySpace::host; }

  void allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) override;
  // Completes before returning (the rendezvous needs every member anyway); the Work is done.
  std::unique_ptr<Work> allreduce_async(void* data, std::size_t count, DType dtype, ReduceOp op,
                                        Group g) override;
  void broadcast(void* data, std::size_t count, DType dtype, int root, Group g) override;
  void allgather(const void* send, void* recv, std::size_t count, DType dtype, Group g) override;
  void barrier(Group g) override;
  // A send copies the message into the receiver's mailbox and is done; a recv's wait() blocks
  // until the message is there.
  std::unique_ptr<Work> send(const void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  std::unique_ptr<Work> recv(void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  // Wakes every rank blocked in a collective with an exception; does not return.
  [[noreturn]] void abort(int code) override;

 private:
  std::shared_ptr<InProcessWorld> world_;
  int rank_;
};

// Runs fn(comm) on world_size threads, one InProcessCommunicator each, grouped into nodes of
// gpus_per_node consecutive ranks. If any rank throws, the others are released from their
// collectives and the first exception is rethrown here after every thread has ended.
void spawn_ranks(const NodeGrouping& grouping, const std::function<void(Communicator&)>& fn);

}  // namespace prunex
