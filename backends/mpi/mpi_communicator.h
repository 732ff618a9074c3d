// The engine's Communicator over MPI: world, intra-node and inter-node-leader communicators
// split once at construction; every collective is timed with MPI_Wtime and recorded.
#pragma once

#include <array>
#include <memory>

#include "backends/mpi/mpi_env.h"
#include "engine/communicator.h"

namespace prunex {

class MpiCommunicator : public Communicator {
 public:
  // world: a private duplicate of MPI_COMM_WORLD; intra: this rank's node; inter: the node
  // leaders (null on other ranks). Use make_mpi_communicator() rather than this.
  MpiCommunicator(NodeGrouping grouping, MpiComm world, MpiComm intra, MpiComm inter, MpiComm rail);

  const NodeGrouping& grouping() const override { return grouping_; }
  int world_rank() const override { return world_rank_; }
  MemorySpace memory_space() const override { return MemorySpace::host; }

  void allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) override;
  std::unique_ptr<Work> allreduce_async(void* data, std::size_t count, DType dtype, ReduceOp op,
                                        Group g) override;
  void broadcast(void* data, std::size_t count, DType dtype, int root, Group g) override;
  void allgather(const void* send, void* recv, std::size_t count, DType dtype, Group g) override;
  void barrier(Group g) override;
  std::unique_ptr<Work> send(const void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  std::unique_ptr<Work> recv(void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  [[noreturn]] void abort(int code) override;

  // The MPI communicator of a group (Group::inter on a non-leader is a logic error).
  MPI_Comm comm(Group g) const;

 private:
  friend class MpiRequestWork;  // sets its call's seconds when it completes
  NodeGrouping grouping_;
  int world_rank_ = 0;
  std::array<MpiComm, 4> comms_;  // indexed by Group
};

// Splits MPI_COMM_WORLD into nodes: gpus_per_node > 0 groups consecutive ranks into emulated
// nodes; 0 groups the ranks that share a host. MPI must be initialised (MpiEnv). Collective.
// UsageError (on every rank) when the world does not divide into equal consecutive nodes.
std::unique_ptr<MpiCommunicator> make_mpi_communicator(int gpus_per_node);

}  // namespace prunex
