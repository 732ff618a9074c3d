// The engine's only view of a network: collectives on the groups of the hierarchy (world,
// intra, inter, rail; engine/types.h). Backends (backends/mpi, backends/nccl) implement it;
// nothing here includes their headers.
// Every call is recorded (op, group, bytes, seconds) so phases can be measured.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/memory_space.h"
#include "engine/types.h"

namespace prunex {

// Which rank is where, and the one place that says who belongs to which group. Nodes are
// consecutive blocks of gpus_per_node ranks; the leader of a node is its local rank 0.
struct NodeGrouping {
  int world_size = 1;
  int gpus_per_node = 1;

  int nodes() const { return world_size / gpus_per_node; }
  int node_of(int world_rank) const { return world_rank / gpus_per_node; }
  int local_rank(int world_rank) const { return world_rank % gpus_per_node; }
  bool is_leader(int world_rank) const { return local_rank(world_rank) == 0; }
  int leader_of(int node) const { return node * gpus_per_node; }

  // Whether world_rank is a member of a group of kind g (inter: leaders only).
  bool takes_part(Group g, int world_rank) const {
    return g != Group::inter || is_leader(world_rank);
  }
  // Members of one group of kind g: world P x M, intra P, inter and rail M.
  int group_size(Group g) const;
  // How many disjoint groups of kind g exist: intra one per node, rail one per local rank,
  // world and inter one.
  int group_count(Group g) const {
    return g == Group::intra ? nodes() : g == Group::rail ? gpus_per_node : 1;
  }
  // The world ranks of every group of kind g, each group in rank order.
  std::vector<std::vector<int>> groups(Group g) const;
  // Which of the groups of kind g (groups(g) order) world_rank belongs to: its node for intra,
  // its local rank for rail, 0 for world and inter.
  int group_index(Group g, int world_rank) const {
    return g == Group::intra ? node_of(world_rank) : g == Group::rail ? local_rank(world_rank) : 0;
  }
  // The world rank of rank r in world_rank's group of kind g (the inverse of rank_in).
  int member(Group g, int world_rank, int r) const;
  // world_rank's rank inside its group of kind g (-1 for inter on a non-leader).
  int rank_in(Group g, int world_rank) const;
};

struct CallRecord {
  CollectiveOp op = CollectiveOp::allreduce;
  Group group = Group::world;
  DType dtype = DType::f32;
  std::size_t bytes = 0;  // bytes this rank contributed (allgather: its own block)
  double seconds = 0;
};

// Handle for an asynchronous collective (used by the DDP overlap). wait() blocks until the
// operation is complete and rethrows a failure from the backend.
class Work {
 public:
  virtual ~Work() = default;
  virtual void wait() = 0;
  virtual bool is_completed() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual const NodeGrouping& grouping() const = 0;
  virtual int world_rank() const = 0;
  int node() const { return grouping().node_of(world_rank()); }
  int local_rank() const { return grouping().local_rank(world_rank()); }
  bool is_leader() const { return grouping().is_leader(world_rank()); }
  // Rank and size within a group, the same arithmetic for every backend (NodeGrouping; each
  // backend checks at construction that its communicators agree). Group::inter on a
  // non-leader is a logic error.
  int rank(Group g) const {
    check_member(g);
    return grouping().rank_in(g, world_rank());
  }
  int size(Group g) const {
    check_member(g);
    return grouping().group_size(g);
  }

  // Where the data pointers of every call live: host memory (in-process, MPI) or the rank's
  // GPU (NCCL: device pointers, ready before the call). The results of every collective are
  // the same on both (tests/conformance/communicator_suite.h).
  virtual MemorySpace memory_space() const = 0;

  // In place. count elements of dtype.
  virtual void allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) = 0;
  virtual std::unique_ptr<Work> allreduce_async(void* data, std::size_t count, DType dtype,
                                                ReduceOp op, Group g) = 0;
  virtual void broadcast(void* data, std::size_t count, DType dtype, int root, Group g) = 0;
  // recv holds size(g) * count elements, rank r's block at r * count.
  virtual void allgather(const void* send, void* recv, std::size_t count, DType dtype, Group g) = 0;
  virtual void barrier(Group g) = 0;
  // Point-to-point messages (CGX's reductions), non-blocking: peer is a rank within group g;
  // the buffer must stay valid until the Work completes. Messages from one rank to another on
  // one group arrive in the order they were sent, and a recv's count must equal its send's.
  // A send records its bytes (CollectiveOp::send); a recv records CollectiveOp::recv, whose
  // bytes are the sender's and count in no tier (engine/tier_bytes.h).
  virtual std::unique_ptr<Work> send(const void* data, std::size_t count, DType dtype, int peer,
                                     Group g) = 0;
  virtual std::unique_ptr<Work> recv(void* data, std::size_t count, DType dtype, int peer,
                                     Group g) = 0;
  // Ends every rank (used when one rank fails, so nobody hangs).
  virtual void abort(int code) = 0;

  const std::vector<CallRecord>& calls() const { return calls_; }
  void clear_calls() { calls_.clear(); }

 protected:
  void check_member(Group g) const;
  // Appends a call in issue order and returns its index; an asynchronous call records at
  // launch and sets its seconds on completion (set_seconds), so calls() keeps issue order.
  std::size_t record(CollectiveOp op, Group g, DType dtype, std::size_t count, double seconds) {
    calls_.push_back({op, g, dtype, count * dtype_size(dtype), seconds});
    return calls_.size() - 1;
  }
  void set_seconds(std::size_t call, double seconds) {
    if (call < calls_.size()) calls_[call].seconds = seconds;
  }

 private:
  std::vector<CallRecord> calls_;
};

// Seconds on a monotonic clock, for phase timing.
inline double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

}  // namespace prunex
