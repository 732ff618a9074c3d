#include "backends/nccl/nccl_communicator.h"

#include <cstdlib>
#include <thread>

#include "backends/cuda/admm_kernels.h"
#include "backends/mpi/mpi_env.h"
#include "backends/nccl/nccl_env.h"
#include "backends/nccl/nccl_grouping.h"
#include "engine/error.h"

namespace prunex {

// Handle of an asynchronous all-reduce: completion is the stop event on the stream.
class NcclWork : public Work {
 public:
  // Recorded at launch so the call records keep issue order; the time is set on wait().
  NcclWork(NcclCommunicator& owner, Group g, DType dtype, std::size_t count)
      : owner_(owner), call_(owner.note(g, dtype, count)) {}
  void wait() override {
    if (done_) return;
    owner_.wait_for(stop_);
    done_ = true;
    owner_.note_seconds(call_, stop_.seconds_since(start_));
  }
  bool is_completed() override {
    if (done_) return true;
    owner_.check_async_errors();
    return stop_.query();
  }

  CudaEvent start_, stop_;
  DeviceArray<uint8_t> scratch_;

 private:
  NcclCommunicator& owner_;
  std::size_t call_;
  bool done_ = false;
};

// A send or receive of the current point-to-point group.
class NcclP2pWork : public Work {
 public:
  NcclP2pWork(NcclCommunicator& owner, std::size_t call, std::shared_ptr<CudaEvent> start,
              std::shared_ptr<CudaEvent> stop)
      : owner_(owner), call_(call), start_(std::move(start)), stop_(std::move(stop)) {}
  void wait() override {
    if (done_) return;
    owner_.flush_p2p(stop_.get());
    owner_.wait_for(*stop_);
    done_ = true;
    owner_.note_seconds(call_, stop_->seconds_since(*start_));
  }
  bool is_completed() override {
    if (done_) return true;
    owner_.flush_p2p(stop_.get());
    owner_.check_async_errors();
    return stop_->query();
  }

 private:
  NcclCommunicator& owner_;
  std::size_t call_;
  std::shared_ptr<CudaEvent> start_, stop_;
  bool done_ = false;
};

NcclCommunicator::NcclCommunicator(MPI_Comm world, NodeGrouping grouping)
    : mpi_(world),
      grouping_(grouping),
      rank_(nccl_checked_rank(world, grouping)),
      device_(nccl_select_device(world)),
      barrier_byte_(1) {
  NcclGroups groups = nccl_split_groups(world, grouping_, rank_);
  world_ = std::move(groups.world);
  intra_ = std::move(groups.intra);
  inter_ = std::move(groups.inter);
  rail_ = std::move(groups.rail);
}

// Sub-communicators go before the world one they were split from.
NcclCommunicator::~NcclCommunicator() {
  if (p2p_stop_) ncclGroupEnd();  // never leave NCCL inside a group
  rail_ = NcclComm();
  inter_ = NcclComm();
  intra_ = NcclComm();
}

ncclComm_t NcclCommunicator::comm(Group g) const {
  switch (g) {
    case Group::world:
      return world_.get();
    case Group::intra:
      return intra_.get();
    case Group::inter:
      PRUNEX_CHECK(inter_, "rank ", rank_, " is not a node leader: it has no inter-node group");
      return inter_.get();
    case Group::rail:
      return rail_.get();
  }
  return nullptr;
}

void NcclCommunicator::check_async_errors() const {
  for (const NcclComm* c : {&world_, &intra_, &inter_, &rail_}) {
    if (!*c) continue;
    ncclResult_t async = ncclSuccess;
    PRUNEX_NCCL_CHECK(ncclCommGetAsyncError(c->get(), &async));
    PRUNEX_NCCL_CHECK(async);
  }
}

void NcclCommunicator::wait_for(const CudaEvent& done) const {
  while (!done.query()) {
    check_async_errors();
    std::this_thread::yield();
  }
}

void NcclCommunicator::order_after_default_stream() {
  default_stream_done_.record(cudaStreamLegacy);
  PRUNEX_CUDA_CHECK(cudaStreamWaitEvent(stream(), default_stream_done_.get(), 0));
}

void NcclCommunicator::enqueue_allreduce(void* data, std::size_t count, DType dtype, ReduceOp op,
                                         Group g, DeviceArray<uint8_t>& scratch) {
  ncclComm_t c = comm(g);
  if (op != ReduceOp::bor) {
    PRUNEX_NCCL_CHECK(ncclAllReduce(data, data, count, nccl_type(dtype), nccl_op(op), c, stream()));
    return;
  }
  PRUNEX_CHECK(dtype == DType::u8, "bitwise or needs uint8 data, got ", dtype_name(dtype));
  scratch = DeviceArray<uint8_t>(8 * count);
  auto* bytes = static_cast<uint8_t*>(data);
  expand_bits_gpu(bytes, static_cast<int64_t>(count), scratch.data(), stream());
  PRUNEX_NCCL_CHECK(
      ncclAllReduce(scratch.data(), scratch.data(), 8 * count, ncclUint8, ncclMax, c, stream()));
  pack_bits_gpu(scratch.data(), static_cast<int64_t>(count), bytes, stream());
}

std::unique_ptr<Work> NcclCommunicator::allreduce_async(void* data, std::size_t count, DType dtype,
                                                        ReduceOp op, Group g) {
  flush_p2p();  // a collective never joins an open group of sends and receives
  auto work = std::make_unique<NcclWork>(*this, g, dtype, count);
  order_after_default_stream();
  work->start_.record(stream());
  enqueue_allreduce(data, count, dtype, op, g, work->scratch_);
  work->stop_.record(stream());
  return work;
}

void NcclCommunicator::allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) {
  allreduce_async(data, count, dtype, op, g)->wait();
}

void NcclCommunicator::broadcast(void* data, std::size_t count, DType dtype, int root, Group g) {
  flush_p2p();  // a collective never joins an open group of sends and receives
  PRUNEX_CHECK(root >= 0 && root < size(g), "broadcast root ", root, " outside group of ", size(g));
  order_after_default_stream();
  CudaEvent start, stop;
  start.record(stream());
  PRUNEX_NCCL_CHECK(ncclBroadcast(data, data, count, nccl_type(dtype), root, comm(g), stream()));
  stop.record(stream());
  wait_for(stop);
  record(CollectiveOp::broadcast, g, dtype, count, stop.seconds_since(start));
}

void NcclCommunicator::allgather(const void* send, void* recv, std::size_t count, DType dtype,
                                 Group g) {
  flush_p2p();
  order_after_default_stream();
  CudaEvent start, stop;
  start.record(stream());
  PRUNEX_NCCL_CHECK(ncclAllGather(send, recv, count, nccl_type(dtype), comm(g), stream()));
  stop.record(stream());
  wait_for(stop);
  record(CollectiveOp::allgather, g, dtype, count, stop.seconds_since(start));
}

// NCCL has no barrier: a one-byte all-reduce that every member must join, then a wait.
void NcclCommunicator::barrier(Group g) {
  flush_p2p();  // a collective never joins an open group of sends and receives
  order_after_default_stream();
  CudaEvent start, stop;
  start.record(stream());
  PRUNEX_NCCL_CHECK(ncclAllReduce(barrier_byte_.data(), barrier_byte_.data(), 1, ncclUint8, ncclMax,
                                  comm(g), stream()));
  stop.record(stream());
  wait_for(stop);
  record(CollectiveOp::barrier, g, DType::u8, 0, stop.seconds_since(start));
}

std::unique_ptr<Work> NcclCommunicator::send(const void* data, std::size_t count, DType dtype,
                                             int peer, Group g) {
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "send to rank ", peer,
               " outside the group of ", size(g));
  open_p2p();
  order_after_default_stream();  // what the caller queued since the group opened, too
  PRUNEX_NCCL_CHECK(ncclSend(data, count, nccl_type(dtype), peer, comm(g), stream()));
  return std::make_unique<NcclP2pWork>(*this, record(CollectiveOp::send, g, dtype, count, 0),
                                       p2p_start_, p2p_stop_);
}

std::unique_ptr<Work> NcclCommunicator::recv(void* data, std::size_t count, DType dtype, int peer,
                                             Group g) {
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "recv from rank ", peer,
               " outside the group of ", size(g));
  open_p2p();
  order_after_default_stream();
  PRUNEX_NCCL_CHECK(ncclRecv(data, count, nccl_type(dtype), peer, comm(g), stream()));
  return std::make_unique<NcclP2pWork>(*this, record(CollectiveOp::recv, g, dtype, count, 0),
                                       p2p_start_, p2p_stop_);
}

void NcclCommunicator::open_p2p() {
  if (p2p_stop_) return;
  p2p_start_ = std::make_shared<CudaEvent>();
  p2p_start_->record(stream());
  PRUNEX_NCCL_CHECK(ncclGroupStart());
  p2p_stop_ = std::make_shared<CudaEvent>();
}

void NcclCommunicator::flush_p2p(const CudaEvent* group) {
  if (!p2p_stop_ || (group != nullptr && group != p2p_stop_.get())) return;
  // The group's Works keep their own copies of its events.
  const std::shared_ptr<CudaEvent> stop = std::move(p2p_stop_);
  p2p_start_.reset();
  PRUNEX_NCCL_CHECK(ncclGroupEnd());
  stop->record(stream());
}

void NcclCommunicator::abort(int code) {
  flush_p2p();
  inter_.abort();
  intra_.abort();
  world_.abort();
  MPI_Abort(mpi_, code);
  std::abort();  // MPI_Abort should not return
}

}  // namespace prunex
