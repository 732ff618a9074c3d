// A Communicator over host memory that forwards to an NcclCommunicator through device
// copies (engine/memory_space.h, backends/cuda/device_space.h): each buffer is copied to the
// device, the NCCL call runs, the result is copied back.
// It records its own calls as the inner one does. For what keeps its payload in host memory
// while NCCL moves it: the communicator conformance suite (no training strategy: they all
// keep their payload on the device). Asynchronous all-reduces complete
// before they return (a staged buffer would otherwise outlive its caller's).
#pragma once

#include <memory>

#include "backends/cuda/device_space.h"
#include "backends/nccl/nccl_communicator.h"
#include "engine/communicator.h"

namespace prunex {

class HostStagedCommunicator : public Communicator {
 public:
  explicit HostStagedCommunicator(NcclCommunicator& inner) : in_(inner) {}
  const NodeGrouping& grouping() const override { return in_.grouping(); }
  int world_rank() const override { return in_.world_rank(); }
  MemorySpace memory_space() const override { return MemorySpace::host; }

  void allreduce(void* data, std::size_t count, DType t, ReduceOp op, Group g) override {
    SpaceBuffer d = up(data, count * dtype_size(t));
    in_.allreduce(d.as<void>(), count, t, op, g);
    down(d, data);
    record(CollectiveOp::allreduce, g, t, count, in_.calls().back().seconds);
  }
  std::unique_ptr<Work> allreduce_async(void* data, std::size_t count, DType t, ReduceOp op,
                                        Group g) override {
    allreduce(data, count, t, op, g);
    return std::make_unique<Done>();
  }
  void broadcast(void* data, std::size_t count, DType t, int root, Group g) override {
    SpaceBuffer d = up(data, count * dtype_size(t));
    in_.broadcast(d.as<void>(), count, t, root, g);
    down(d, data);
    record(CollectiveOp::broadcast, g, t, count, in_.calls().back().seconds);
  }
  void allgather(const void* send, void* recv, std::size_t count, DType t, Group g) override {
    SpaceBuffer s = up(send, count * dtype_size(t));
    SpaceBuffer r = dev_->alloc(static_cast<int64_t>(count * dtype_size(t) * size(g)));
    in_.allgather(s.as<void>(), r.as<void>(), count, t, g);
    down(r, recv);
    record(CollectiveOp::allgather, g, t, count, in_.calls().back().seconds);
  }
  void barrier(Group g) override {
    in_.barrier(g);
    record(CollectiveOp::barrier, g, DType::u8, 0, in_.calls().back().seconds);
  }
  // Point-to-point: the device buffer lives in the Work until it completes.
  std::unique_ptr<Work> send(const void* data, std::size_t count, DType t, int peer,
                             Group g) override {
    auto w = std::make_unique<Staged>(*dev_);
    w->dev = up(data, count * dtype_size(t));
    w->inner = in_.send(w->dev.as<void>(), count, t, peer, g);
    record(CollectiveOp::send, g, t, count, 0);
    return w;
  }
  std::unique_ptr<Work> recv(void* data, std::size_t count, DType t, int peer, Group g) override {
    auto w = std::make_unique<Staged>(*dev_);
    w->dev = dev_->alloc(static_cast<int64_t>(count * dtype_size(t)));
    w->host = data;
    w->inner = in_.recv(w->dev.as<void>(), count, t, peer, g);
    record(CollectiveOp::recv, g, t, count, 0);
    return w;
  }
  void abort(int code) override { in_.abort(code); }

 private:
  struct Done : Work {
    void wait() override {}
    bool is_completed() override { return true; }
  };
  struct Staged : Work {
    explicit Staged(SpaceMemory& space) : space(space) {}
    SpaceMemory& space;
    SpaceBuffer dev;
    void* host = nullptr;
    std::unique_ptr<Work> inner;
    void wait() override {
      inner->wait();
      if (host) space.to_host(host, dev.as<void>(), dev.bytes());
      host = nullptr;
    }
    bool is_completed() override { return inner->is_completed(); }
  };
  SpaceBuffer up(const void* p, std::size_t bytes) {
    SpaceBuffer d = dev_->alloc(static_cast<int64_t>(bytes));
    dev_->from_host(d.as<void>(), p, static_cast<int64_t>(bytes));
    return d;
  }
  void down(const SpaceBuffer& d, void* p) { dev_->to_host(p, d.as<void>(), d.bytes()); }
  NcclCommunicator& in_;
  std::unique_ptr<SpaceMemory> dev_ = make_device_space();  // the device copies
};

}  // namespace prunex
