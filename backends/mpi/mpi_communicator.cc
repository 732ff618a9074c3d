#include "backends/mpi/mpi_communicator.h"

#include <climits>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <utility>

#include "backends/mpi/mpi_grouping.h"
#include "engine/error.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

int group_index(Group g) {
  return static_cast<int>(g);
}

int checked_count(std::size_t count) {
  PRUNEX_CHECK(count <= static_cast<std::size_t>(INT_MAX), "count ", count,
               " exceeds MPI's int count");
  return static_cast<int>(count);
}

// Sums of 16-bit floats in their own type (engine/wire_dtype.h), as user ops: MPI has no
// bf16 or half.
template <DType T>
void wire_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  wire_add(T, static_cast<uint16_t*>(inout), static_cast<const uint16_t*>(in),
           static_cast<std::size_t>(*len));
}

MPI_Op wire_sum_op(DType t) {
  static MPI_Op bf16 = MPI_OP_NULL, f16 = MPI_OP_NULL;
  MPI_Op& op = t == DType::bf16 ? bf16 : f16;
  if (op == MPI_OP_NULL)
    PRUNEX_MPI_CHECK(
        MPI_Op_create(t == DType::bf16 ? wire_sum<DType::bf16> : wire_sum<DType::f16>, 1, &op));
  return op;
}

// avg is a sum followed by a division, so it needs float or double; bor works on bytes; the
// 16-bit floats only sum.
MPI_Op mpi_op(ReduceOp op, DType t) {
  PRUNEX_CHECK(!is_wire_dtype(t) || op == ReduceOp::sum, dtype_name(t), " reduces by sum only");
  switch (op) {
    case ReduceOp::sum:
      return is_wire_dtype(t) ? wire_sum_op(t) : MPI_SUM;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::avg:
      PRUNEX_CHECK(t == DType::f32 || t == DType::f64, "avg needs float or double, got ",
                   dtype_name(t));
      return MPI_SUM;
    case ReduceOp::bor:
      PRUNEX_CHECK(t == DType::u8, "bor works on uint8 only, got ", dtype_name(t));
      return MPI_BOR;
  }
  throw std::logic_error("unknown ReduceOp");
}

void divide(void* data, std::size_t count, DType t, int n) {
  if (t == DType::f32) {
    auto* p = static_cast<float*>(data);
    for (std::size_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n);
  } else {
    auto* p = static_cast<double*>(data);
    for (std::size_t i = 0; i < count; ++i) p[i] /= n;
  }
}

}  // namespace

// A non-blocking MPI call in flight (MPI_Iallreduce, MPI_Isend, MPI_Irecv), recorded at issue
// (calls() keeps issue order). The communicator must outlive it. Completion (wait, a
// successful is_completed, or destruction) runs `finish` (an avg's division) and sets the
// call's seconds, once.
class MpiRequestWork : public Work {
 public:
  MpiRequestWork(MpiCommunicator& comm, std::size_t call, std::function<void()> finish = {})
      : comm_(comm), call_(call), finish_(std::move(finish)), start_(MPI_Wtime()) {}
  ~MpiRequestWork() override {
    // The buffer must not be released while MPI still reads or writes it.
    if (request_ != MPI_REQUEST_NULL && MpiEnv::active()) {
      MPI_Wait(&request_, MPI_STATUS_IGNORE);
      if (!done_) complete();
    }
  }
  MpiRequestWork(const MpiRequestWork&) = delete;
  MpiRequestWork& operator=(const MpiRequestWork&) = delete;

  MPI_Request* request() { return &request_; }
  void wait() override {
    if (done_) return;
    PRUNEX_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
    complete();
  }
  bool is_completed() override {
    if (done_) return true;
    int flag = 0;
    PRUNEX_MPI_CHECK(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE));
    if (flag) complete();
    return done_;
  }

 private:
  void complete() {
    done_ = true;
    if (finish_) finish_();
    comm_.set_seconds(call_, MPI_Wtime() - start_);
  }

  MpiCommunicator& comm_;
  std::size_t call_;
  std::function<void()> finish_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  double start_ = 0;
  bool done_ = false;
};

MpiCommunicator::MpiCommunicator(NodeGrouping grouping, MpiComm world, MpiComm intra, MpiComm inter,
                                 MpiComm rail)
    : grouping_(grouping) {
  world_rank_ = world.rank();
  comms_[group_index(Group::world)] = std::move(world);
  comms_[group_index(Group::intra)] = std::move(intra);
  comms_[group_index(Group::inter)] = std::move(inter);
  comms_[group_index(Group::rail)] = std::move(rail);
  // The splits must agree with the grouping's arithmetic the rest of the engine relies on.
  PRUNEX_CHECK_EQ(comms_[0].size(), grouping_.world_size);
  PRUNEX_CHECK_EQ(comms_[1].size(), grouping_.gpus_per_node);
  PRUNEX_CHECK_EQ(comms_[1].rank(), grouping_.local_rank(world_rank_));
  PRUNEX_CHECK_EQ(static_cast<bool>(comms_[2]), grouping_.is_leader(world_rank_));
  PRUNEX_CHECK_EQ(comms_[3].size(), grouping_.nodes());
  PRUNEX_CHECK_EQ(comms_[3].rank(), grouping_.node_of(world_rank_));
  if (comms_[2]) {
    PRUNEX_CHECK_EQ(comms_[2].size(), grouping_.nodes());
    PRUNEX_CHECK_EQ(comms_[2].rank(), grouping_.node_of(world_rank_));
  }
}

MPI_Comm MpiCommunicator::comm(Group g) const {
  const MpiComm& c = comms_[group_index(g)];
  PRUNEX_CHECK(static_cast<bool>(c), "world rank ", world_rank_,
               " is not a node leader and has no ", group_name(g), " group");
  return c.get();
}

void MpiCommunicator::allreduce(void* data, std::size_t count, DType dtype, ReduceOp op, Group g) {
  const MPI_Op mop = mpi_op(op, dtype);
  const MPI_Comm c = comm(g);
  const double t0 = MPI_Wtime();
  PRUNEX_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, data, checked_count(count), mpi_datatype(dtype), mop, c));
  if (op == ReduceOp::avg) divide(data, count, dtype, size(g));
  record(CollectiveOp::allreduce, g, dtype, count, MPI_Wtime() - t0);
}

std::unique_ptr<Work> MpiCommunicator::allreduce_async(void* data, std::size_t count, DType dtype,
                                                       ReduceOp op, Group g) {
  const MPI_Op mop = mpi_op(op, dtype);
  const MPI_Comm c = comm(g);
  std::function<void()> finish;
  if (op == ReduceOp::avg)
    finish = [this, data, count, dtype, g] { divide(data, count, dtype, size(g)); };
  auto w = std::make_unique<MpiRequestWork>(
      *this, record(CollectiveOp::allreduce, g, dtype, count, 0), std::move(finish));
  PRUNEX_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, data, checked_count(count), mpi_datatype(dtype),
                                  mop, c, w->request()));
  return w;
}

void MpiCommunicator::broadcast(void* data, std::size_t count, DType dtype, int root, Group g) {
  const MPI_Comm c = comm(g);
  PRUNEX_CHECK(root >= 0 && root < size(g), "broadcast root ", root, " outside ", group_name(g),
               " group of size ", size(g));
  const double t0 = MPI_Wtime();
  PRUNEX_MPI_CHECK(MPI_Bcast(data, checked_count(count), mpi_datatype(dtype), root, c));
  record(CollectiveOp::broadcast, g, dtype, count, MPI_Wtime() - t0);
}

void MpiCommunicator::allgather(const void* send, void* recv, std::size_t count, DType dtype,
                                Group g) {
  const MPI_Comm c = comm(g);
  const MPI_Datatype t = mpi_datatype(dtype);
  const int n = checked_count(count);
  const double t0 = MPI_Wtime();
  PRUNEX_MPI_CHECK(MPI_Allgather(send, n, t, recv, n, t, c));
  record(CollectiveOp::allgather, g, dtype, count, MPI_Wtime() - t0);
}

void MpiCommunicator::barrier(Group g) {
  const MPI_Comm c = comm(g);
  const double t0 = MPI_Wtime();
  PRUNEX_MPI_CHECK(MPI_Barrier(c));
  record(CollectiveOp::barrier, g, DType::u8, 0, MPI_Wtime() - t0);
}

// Tag 0: MPI keeps the messages between two ranks on one communicator in order.
std::unique_ptr<Work> MpiCommunicator::send(const void* data, std::size_t count, DType dtype,
                                            int peer, Group g) {
  const MPI_Comm c = comm(g);
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "send to rank ", peer, " of the ",
               group_name(g), " group (size ", size(g), ")");
  auto w = std::make_unique<MpiRequestWork>(*this, record(CollectiveOp::send, g, dtype, count, 0));
  PRUNEX_MPI_CHECK(
      MPI_Isend(data, checked_count(count), mpi_datatype(dtype), peer, 0, c, w->request()));
  return w;
}

std::unique_ptr<Work> MpiCommunicator::recv(void* data, std::size_t count, DType dtype, int peer,
                                            Group g) {
  const MPI_Comm c = comm(g);
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "recv from rank ", peer, " of the ",
               group_name(g), " group (size ", size(g), ")");
  auto w = std::make_unique<MpiRequestWork>(*this, record(CollectiveOp::recv, g, dtype, count, 0));
  PRUNEX_MPI_CHECK(
      MPI_Irecv(data, checked_count(count), mpi_datatype(dtype), peer, 0, c, w->request()));
  return w;
}

void MpiCommunicator::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this satisfies [[noreturn]] if it ever did
}

std::unique_ptr<MpiCommunicator> make_mpi_communicator(int gpus_per_node) {
  PRUNEX_CHECK(MpiEnv::active(), "MPI is not initialised (create an MpiEnv first)");
  MpiComm world = MpiComm::dup(MPI_COMM_WORLD);
  const NodeGrouping g = mpi_node_grouping(world.get(), gpus_per_node);
  const int r = world.rank();
  MpiComm intra = MpiComm::split(world.get(), g.node_of(r), g.local_rank(r));
  MpiComm inter = MpiComm::split(world.get(), g.is_leader(r) ? 0 : MPI_UNDEFINED, g.node_of(r));
  MpiComm rail = MpiComm::split(world.get(), g.local_rank(r), g.node_of(r));
  return std::make_unique<MpiCommunicator>(g, std::move(world), std::move(intra), std::move(inter),
                                           std::move(rail));
}

}  // namespace prunex
