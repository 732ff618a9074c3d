// The engine's Communicator over NCCL, for live runs on GPUs, bootstrapped through MPI
// (nccl_grouping.h: the unique id, the device, the four groups split from the world).
//
// Every data pointer passed to this communicator is a DEVICE pointer on this rank's GPU.
// Each collective, send and receive first makes the communicator's stream wait, on the
// device, for the work queued so far on the legacy default stream (a send that joins an open
// group waits for what was queued before it, not only before the group opened), the
// stream LibTorch computes on: buffers LibTorch (or a kernel on that stream) just wrote are
// ready without a host synchronisation, and backward kernels queued later still overlap the
// collective (as PyTorch's DDP orders its buckets). Work on any other stream that produces
// a buffer must have finished, or be ordered before stream() with an event.
// Collectives run on one CUDA stream owned by the communicator; the blocking calls return
// after the stream has finished, and each call is recorded with its time measured by CUDA
// events around the collective. ReduceOp::bor (bytes only) is done by expanding every bit to
// a byte, a MAX all-reduce, and packing back; masks use the cheaper one-byte-per-group form
// directly (tests/nccl/mask_bytes.h).
#pragma once

#include <mpi.h>

#include <memory>

#include "backends/cuda/cuda_handles.h"
#include "backends/nccl/nccl_env.h"
#include "engine/communicator.h"

namespace prunex {

class NcclCommunicator : public Communicator {
 public:
  // Collective over `world` (MPI must be initialised; the caller finalises it). The MPI size
  // must equal grouping.world_size and be a multiple of gpus_per_node (UsageError otherwise).
  // The GPU is chosen by the rank's index among the ranks on its host, modulo the devices it
  // sees; no device is a CudaError naming the reason.
  NcclCommunicator(MPI_Comm world, NodeGrouping grouping);
  ~NcclCommunicator() override;

  const NodeGrouping& grouping() const override { return grouping_; }
  int world_rank() const override { return rank_; }
  MemorySpace memory_space() const override { return MemorySpace::device; }

  void allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) override;
  std::unique_ptr<Work> allreduce_async(void* data, std::size_t count, DType dtype, ReduceOp op,
                                        Group g) override;
  void broadcast(void* data, std::size_t count, DType dtype, int root, Group g) override;
  void allgather(const void* send, void* recv, std::size_t count, DType dtype, Group g) override;
  void barrier(Group g) override;
  // Sends and receives posted one after another form one NCCL group (ncclGroupStart ...
  // ncclGroupEnd), which closes at the first wait() or is_completed() of any of them, so a
  // ring's send to the next rank and receive from the previous one cannot deadlock.
  std::unique_ptr<Work> send(const void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  std::unique_ptr<Work> recv(void* data, std::size_t count, DType dtype, int peer,
                             Group g) override;
  // ncclCommAbort on every communicator, then MPI_Abort (does not return).
  void abort(int code) override;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_.get(); }
  ncclComm_t comm(Group g) const;

 private:
  friend class NcclWork;
  friend class NcclP2pWork;
  // Opens a group of point-to-point calls (if none is open) / ends the open group and records
  // its completion event: any group (nullptr; every collective does so first, so it never
  // joins a group of sends and receives), or only the one whose completion event is `group`
  // (a Work waiting closes its own group, never a newer one).
  void open_p2p();
  void flush_p2p(const CudaEvent* group = nullptr);
  // Enqueues the all-reduce on the stream; scratch (bor only) must live until it finishes.
  void enqueue_allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g,
                         DeviceArray<uint8_t>& scratch);
  // Waits for `done` while polling the communicators for asynchronous NCCL errors, so a
  // failed peer ends this rank with an error instead of a hang.
  void wait_for(const CudaEvent& done) const;
  void check_async_errors() const;
  // stream() waits (on the device) for the work queued so far on the legacy default stream.
  void order_after_default_stream();
  std::size_t note(Group g, DType dtype, std::size_t count) {
    return record(CollectiveOp::allreduce, g, dtype, count, 0);
  }
  void note_seconds(std::size_t call, double seconds) { set_seconds(call, seconds); }

  MPI_Comm mpi_;
  NodeGrouping grouping_;
  int rank_ = 0;
  int device_ = 0;  // set (cudaSetDevice) before the stream below is created
  NcclComm world_, intra_, inter_, rail_;
  CudaStream stream_;
  DeviceArray<uint8_t> barrier_byte_;
  CudaEvent default_stream_done_{false};  // order_after_default_stream's, without timing
  // The open group of sends and receives (none: null): its start event, and the completion
  // event the Works of its calls share (recorded when the group closes).
  std::shared_ptr<CudaEvent> p2p_start_, p2p_stop_;
};

}  // namespace prunex
