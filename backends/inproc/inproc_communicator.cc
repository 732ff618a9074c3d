#include "backends/inproc/inproc_communicator.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/wire_dtype.h"

namespace prunex {
namespace {

// Thrown in the ranks that another rank's failure released from a collective.
struct RankAborted : std::runtime_error {
  RankAborted() : std::runtime_error("in-process world aborted by another rank") {}
};

// One group's meeting point: each member posts its buffer, waits for all, computes its
// result from everyone's buffers, and waits again before anyone may reuse a buffer.
struct Rendezvous {
  int size = 0;
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::vector<const void*> in;
  std::vector<std::size_t> count;

  void wait_all(const std::atomic<bool>& aborted) {
    std::unique_lock<std::mutex> lock(m);
    const std::uint64_t g = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return generation != g || aborted.load(); });
    if (generation == g) throw RankAborted();
  }
  void wake() {
    std::lock_guard<std::mutex> lock(m);
    cv.notify_all();
  }
};

template <typename T>
void reduce_into(std::vector<const void*>& in, std::size_t n, ReduceOp op, T* out) {
  const int members = static_cast<int>(in.size());
  for (std::size_t i = 0; i < n; ++i) {
    T acc = static_cast<const T*>(in[0])[i];
    for (int r = 1; r < members; ++r) {
      const T x = static_cast<const T*>(in[r])[i];
      switch (op) {
        case ReduceOp::sum:
        case ReduceOp::avg:
          acc = static_cast<T>(acc + x);
          break;
        case ReduceOp::max:
          acc = x > acc ? x : acc;
          break;
        case ReduceOp::bor:
          if constexpr (std::is_integral_v<T>) acc = static_cast<T>(acc | x);
          break;
      }
    }
    if (op == ReduceOp::avg) acc = static_cast<T>(acc / static_cast<T>(members));
    out[i] = acc;
  }
}

void reduce(std::vector<const void*>& in, std::size_t n, DType dtype, ReduceOp op, void* out) {
  PRUNEX_CHECK(op != ReduceOp::bor || dtype == DType::u8, "bitwise OR needs uint8");
  switch (dtype) {
    case DType::f32:
      return reduce_into(in, n, op, static_cast<float*>(out));
    case DType::f64:
      return reduce_into(in, n, op, static_cast<double*>(out));
    case DType::i32:
      return reduce_into(in, n, op, static_cast<int32_t*>(out));
    case DType::i64:
      return reduce_into(in, n, op, static_cast<int64_t*>(out));
    case DType::u8:
      return reduce_into(in, n, op, static_cast<uint8_t*>(out));
    case DType::i8:
      return reduce_into(in, n, op, static_cast<int8_t*>(out));
    case DType::bf16:
    case DType::f16: {  // summed in the wire type, rank by rank
      PRUNEX_CHECK(op == ReduceOp::sum, dtype_name(dtype), " reduces by sum only");
      std::vector<uint16_t> acc(static_cast<const uint16_t*>(in[0]),
                                static_cast<const uint16_t*>(in[0]) + n);
      for (std::size_t r = 1; r < in.size(); ++r)
        wire_add(dtype, acc.data(), static_cast<const uint16_t*>(in[r]), n);
      std::copy(acc.begin(), acc.end(), static_cast<uint16_t*>(out));
      return;
    }
  }
}

class DoneWork : public Work {
 public:
  void wait() override {}
  bool is_completed() override { return true; }
};

}  // namespace

class InProcessWorld {
 public:
  explicit InProcessWorld(NodeGrouping grouping) : grouping_(grouping) {
    for (Group g : {Group::world, Group::intra, Group::inter, Group::rail}) {
      auto& list = meet_[static_cast<int>(g)];
      for (int i = 0; i < grouping.group_count(g); ++i) {
        list.push_back(std::make_unique<Rendezvous>());
        list.back()->size = grouping.group_size(g);
        list.back()->in.assign(list.back()->size, nullptr);
        list.back()->count.assign(list.back()->size, 0);
      }
    }
  }

  const NodeGrouping& grouping() const { return grouping_; }

  Rendezvous& meeting(Group g, int world_rank) {
    PRUNEX_CHECK(grouping_.takes_part(g, world_rank), "rank ", world_rank, " is not in the ",
                 group_name(g), " group");
    return *meet_[static_cast<int>(g)][grouping_.group_index(g, world_rank)];
  }

  // Posts this rank's buffer and count, waits for every member and checks the counts agree.
  Rendezvous& post(Group g, int world_rank, const void* data, std::size_t count) {
    Rendezvous& r = meeting(g, world_rank);
    const int me = grouping_.rank_in(g, world_rank);
    r.in[me] = data;
    r.count[me] = count;
    r.wait_all(aborted_);
    for (std::size_t c : r.count)
      PRUNEX_CHECK(c == count, "ranks of the ", group_name(g), " group disagree on the count (", c,
                   " vs ", count, ")");
    return r;
  }

  void abort() {
    aborted_ = true;
    for (auto& list : meet_)
      for (auto& r : list) r->wake();
    std::lock_guard<std::mutex> lock(mail_m_);
    mail_cv_.notify_all();
  }

  // Point-to-point: one FIFO per (group kind, sender, receiver) in world ranks.
  void post_message(Group g, int from, int to, const void* data, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mail_m_);
    const auto* p = static_cast<const uint8_t*>(data);
    mail_[{static_cast<int>(g), from, to}].emplace_back(p, p + bytes);
    mail_cv_.notify_all();
  }
  void take_message(Group g, int from, int to, void* data, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mail_m_);
    auto& q = mail_[{static_cast<int>(g), from, to}];
    mail_cv_.wait(lock, [&] { return !q.empty() || aborted_; });
    if (q.empty()) throw RankAborted();
    PRUNEX_CHECK(q.front().size() == bytes, "recv of ", bytes, " bytes on the ", group_name(g),
                 " group met a message of ", q.front().size(), " bytes from world rank ", from);
    std::memcpy(data, q.front().data(), bytes);
    q.pop_front();
  }
  const std::atomic<bool>& aborted() const { return aborted_; }

 private:
  NodeGrouping grouping_;
  std::vector<std::unique_ptr<Rendezvous>> meet_[4];  // indexed by Group
  std::atomic<bool> aborted_{false};
  std::mutex mail_m_;
  std::condition_variable mail_cv_;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<uint8_t>>> mail_;
};

namespace {

class RecvWork : public Work {
 public:
  explicit RecvWork(std::function<void()> take) : take_(std::move(take)) {}
  void wait() override {
    if (take_) std::exchange(take_, nullptr)();
  }
  bool is_completed() override { return !take_; }

 private:
  std::function<void()> take_;
};

}  // namespace

InProcessCommunicator::InProcessCommunicator(std::shared_ptr<InProcessWorld> world, int world_rank)
    : world_(std::move(world)), rank_(world_rank) {}

const NodeGrouping& InProcessCommunicator::grouping() const {
  return world_->grouping();
}

void InProcessCommunicator::allreduce(void* data, std::size_t count, DType dtype, ReduceOp op,
                                      Group g) {
  const double t0 = now_seconds();
  Rendezvous& r = world_->post(g, rank_, data, count);
  std::vector<uint8_t> result(count * dtype_size(dtype));
  reduce(r.in, count, dtype, op, result.data());
  r.wait_all(world_->aborted());  // everyone has read every buffer
  std::memcpy(data, result.data(), result.size());
  record(CollectiveOp::allreduce, g, dtype, count, now_seconds() - t0);
}

std::unique_ptr<Work> InProcessCommunicator::allreduce_async(void* data, std::size_t count,
                                                             DType dtype, ReduceOp op, Group g) {
  allreduce(data, count, dtype, op, g);
  return std::make_unique<DoneWork>();
}

void InProcessCommunicator::broadcast(void* data, std::size_t count, DType dtype, int root,
                                      Group g) {
  PRUNEX_CHECK(root >= 0 && root < size(g), "broadcast root ", root, " outside the ", group_name(g),
               " group of size ", size(g));
  const double t0 = now_seconds();
  Rendezvous& r = world_->post(g, rank_, data, count);
  if (rank(g) != root) std::memcpy(data, r.in[root], count * dtype_size(dtype));
  r.wait_all(world_->aborted());
  record(CollectiveOp::broadcast, g, dtype, count, now_seconds() - t0);
}

void InProcessCommunicator::allgather(const void* send, void* recv, std::size_t count, DType dtype,
                                      Group g) {
  const double t0 = now_seconds();
  Rendezvous& r = world_->post(g, rank_, send, count);
  const std::size_t block = count * dtype_size(dtype);
  for (std::size_t m = 0; m < r.in.size(); ++m)
    std::memcpy(static_cast<uint8_t*>(recv) + m * block, r.in[m], block);
  r.wait_all(world_->aborted());
  record(CollectiveOp::allgather, g, dtype, count, now_seconds() - t0);
}

void InProcessCommunicator::barrier(Group g) {
  const double t0 = now_seconds();
  Rendezvous& r = world_->post(g, rank_, nullptr, 0);
  r.wait_all(world_->aborted());  // nobody posts the next call before all checked this one
  record(CollectiveOp::barrier, g, DType::u8, 0, now_seconds() - t0);
}

std::unique_ptr<Work> InProcessCommunicator::send(const void* data, std::size_t count, DType dtype,
                                                  int peer, Group g) {
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "send to rank ", peer, " of the ",
               group_name(g), " group (size ", size(g), ", this rank ", rank(g), ")");
  const int to = grouping().member(g, rank_, peer);
  world_->post_message(g, rank_, to, data, count * dtype_size(dtype));
  record(CollectiveOp::send, g, dtype, count, 0);
  return std::make_unique<DoneWork>();
}

std::unique_ptr<Work> InProcessCommunicator::recv(void* data, std::size_t count, DType dtype,
                                                  int peer, Group g) {
  PRUNEX_CHECK(peer >= 0 && peer < size(g) && peer != rank(g), "recv from rank ", peer, " of the ",
               group_name(g), " group (size ", size(g), ", this rank ", rank(g), ")");
  const int from = grouping().member(g, rank_, peer);
  const std::size_t call = record(CollectiveOp::recv, g, dtype, count, 0);
  const double t0 = now_seconds();
  return std::make_unique<RecvWork>([this, g, from, data, count, dtype, call, t0] {
    world_->take_message(g, from, rank_, data, count * dtype_size(dtype));
    set_seconds(call, now_seconds() - t0);
  });
}

void InProcessCommunicator::abort(int code) {
  world_->abort();
  throw std::runtime_error(detail::concat("rank ", rank_, " aborted (code ", code, ")"));
}

void spawn_ranks(const NodeGrouping& grouping, const std::function<void(Communicator&)>& fn) {
  PRUNEX_USAGE(grouping.gpus_per_node >= 1 && grouping.world_size >= 1 &&
                   grouping.world_size % grouping.gpus_per_node == 0,
               "in-process world: ", grouping.world_size, " ranks do not form nodes of ",
               grouping.gpus_per_node);
  auto world = std::make_shared<InProcessWorld>(grouping);
  std::mutex m;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int r = 0; r < grouping.world_size; ++r) {
    threads.emplace_back([&, r] {
      InProcessCommunicator comm(world, r);
      try {
        fn(comm);
      } catch (const RankAborted&) {
        // released by another rank's failure; that rank reports it
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(m);
          if (!first) first = std::current_exception();
        }
        world->abort();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace prunex
