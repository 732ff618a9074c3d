// One communicator conformance suite (issue 22; gloo's pattern: one test body over every
// transport). Each check runs on every rank of a world with its own Communicator and compares
// every collective on every group with its closed form: awkward sizes, every dtype the op
// supports, every op; point-to-point messages in order; one call record per call. The bodies
// are instantiated for the in-process communicator (tests/engine/communicator_inproc_test.cc),
// Open MPI (tests/mpi/communicator_mpi_test.cc) and, where a GPU exists, NCCL (device buffers:
// the NCCL instantiation copies in and out; tests/nccl).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/communicator.h"
#include "engine/wire_dtype.h"

namespace prunex::conformance {

inline constexpr Group kAllGroups[] = {Group::world, Group::intra, Group::inter, Group::rail};
inline constexpr std::size_t kAwkwardCounts[] = {1, 7, 1023, 65537};

inline bool member(const Communicator& c, Group g) {
  return c.grouping().takes_part(g, c.world_rank());
}

// Rank q's element k: small integers, exact in every dtype and in every sum below
// (at most 12 x 8 ranks = 96: fits int8, and bf16 / fp16 hold integers to 256 / 2048).
inline int value(int q, std::size_t k) {
  return static_cast<int>(k % 3 + 1) * (q % 4 + 1);
}

template <typename T>
T to(DType t, int v) {
  if constexpr (std::is_same_v<T, uint16_t>) return to_wire(t, static_cast<float>(v));
  return static_cast<T>(v);
}
template <typename T>
double from(DType t, T v) {
  if constexpr (std::is_same_v<T, uint16_t>) return from_wire(t, v);
  return static_cast<double>(v);
}

// SUM, MAX (and AVG for floats) of value(q, k) over the group, per dtype.
template <typename T>
void check_allreduce_type(Communicator& c, Group g, DType t) {
  const int n = c.size(g), q = c.rank(g);
  std::vector<ReduceOp> ops = {ReduceOp::sum};
  if (t != DType::bf16 && t != DType::f16) ops.push_back(ReduceOp::max);
  if (t == DType::f32 || t == DType::f64) ops.push_back(ReduceOp::avg);
  for (ReduceOp op : ops)
    for (std::size_t count : kAwkwardCounts) {
      std::vector<T> v(count);
      for (std::size_t k = 0; k < count; ++k) v[k] = to<T>(t, value(q, k));
      c.allreduce(v.data(), count, t, op, g);
      long wrong = 0;
      for (std::size_t k = 0; k < count; ++k) {
        double want = 0;
        for (int r = 0; r < n; ++r)
          want = op == ReduceOp::max ? std::max(want, double(value(r, k))) : want + value(r, k);
        if (op == ReduceOp::avg) want /= n;
        wrong += std::abs(from(t, v[k]) - want) > 1e-6 * want;
      }
      EXPECT_EQ(wrong, 0) << group_name(g) << " " << dtype_name(t) << " " << reduce_op_name(op)
                          << " count " << count;
    }
}

inline void allreduce_every_dtype_and_op(Communicator& c) {
  for (Group g : kAllGroups) {
    if (!member(c, g)) continue;
    check_allreduce_type<float>(c, g, DType::f32);
    check_allreduce_type<double>(c, g, DType::f64);
    check_allreduce_type<int32_t>(c, g, DType::i32);
    check_allreduce_type<int64_t>(c, g, DType::i64);
    check_allreduce_type<uint8_t>(c, g, DType::u8);
    check_allreduce_type<int8_t>(c, g, DType::i8);
    check_allreduce_type<uint16_t>(c, g, DType::bf16);
    check_allreduce_type<uint16_t>(c, g, DType::f16);
    // OR of one bit per rank: bit q % 8 of every byte.
    const int n = c.size(g), q = c.rank(g);
    std::vector<uint8_t> bits(13, static_cast<uint8_t>(1u << (q % 8)));
    c.allreduce(bits.data(), bits.size(), DType::u8, ReduceOp::bor, g);
    uint8_t want = 0;
    for (int r = 0; r < n; ++r) want |= static_cast<uint8_t>(1u << (r % 8));
    for (uint8_t b : bits) EXPECT_EQ(b, want) << group_name(g) << " bor";
  }
}

inline void async_allreduces_complete_in_any_order(Communicator& c) {
  const int n = c.size(Group::world), q = c.rank(Group::world);
  std::vector<std::vector<float>> bufs(3);
  std::vector<std::unique_ptr<Work>> works;
  for (int i = 0; i < 3; ++i) {
    bufs[i].assign(1000 + 333 * i, static_cast<float>(q + i));
    works.push_back(
        c.allreduce_async(bufs[i].data(), bufs[i].size(), DType::f32, ReduceOp::sum, Group::world));
  }
  for (int i = 2; i >= 0; --i) works[i]->wait();
  for (int i = 0; i < 3; ++i)
    for (float x : bufs[i]) ASSERT_EQ(x, n * (n - 1) / 2.0f + n * i) << "buffer " << i;
}

inline void broadcast_from_every_root(Communicator& c) {
  for (Group g : kAllGroups) {
    if (!member(c, g)) continue;
    const int n = c.size(g), q = c.rank(g);
    for (std::size_t count : kAwkwardCounts)
      for (int root = 0; root < n; ++root) {
        std::vector<int32_t> v(count, -1);
        if (q == root)
          for (std::size_t k = 0; k < count; ++k) v[k] = root * 1000 + static_cast<int>(k % 97);
        c.broadcast(v.data(), count, DType::i32, root, g);
        long wrong = 0;
        for (std::size_t k = 0; k < count; ++k)
          wrong += v[k] != root * 1000 + static_cast<int>(k % 97);
        EXPECT_EQ(wrong, 0) << group_name(g) << " root " << root << " count " << count;
      }
  }
}

inline void allgather_in_rank_order(Communicator& c) {
  for (Group g : kAllGroups) {
    if (!member(c, g)) continue;
    const int n = c.size(g), q = c.rank(g);
    for (std::size_t count : kAwkwardCounts) {
      std::vector<double> mine(count), all(count * n, -1);
      for (std::size_t k = 0; k < count; ++k) mine[k] = q + k * 1e-3;
      c.allgather(mine.data(), all.data(), count, DType::f64, g);
      long wrong = 0;
      for (int r = 0; r < n; ++r)
        for (std::size_t k = 0; k < count; ++k) wrong += all[r * count + k] != r + k * 1e-3;
      EXPECT_EQ(wrong, 0) << group_name(g) << " count " << count;
    }
  }
}

inline void send_recv_ring_in_order(Communicator& c) {
  for (Group g : kAllGroups) {
    if (!member(c, g) || c.size(g) < 2) continue;
    const int n = c.size(g), q = c.rank(g), next = (q + 1) % n, prev = (q + n - 1) % n;
    for (std::size_t count : kAwkwardCounts) {
      std::vector<float> a(count, static_cast<float>(q)), b(count + 1, static_cast<float>(-q));
      std::vector<float> ra(count), rb(count + 1);
      std::vector<std::unique_ptr<Work>> w;
      w.push_back(c.recv(ra.data(), count, DType::f32, prev, g));
      w.push_back(c.recv(rb.data(), count + 1, DType::f32, prev, g));
      w.push_back(c.send(a.data(), count, DType::f32, next, g));
      w.push_back(c.send(b.data(), count + 1, DType::f32, next, g));
      for (auto& x : w) x->wait();
      EXPECT_EQ(ra, std::vector<float>(count, static_cast<float>(prev))) << group_name(g);
      EXPECT_EQ(rb, std::vector<float>(count + 1, static_cast<float>(-prev))) << group_name(g);
    }
  }
}

inline void one_record_per_call(Communicator& c) {
  c.clear_calls();
  std::vector<float> v(10, 1.0f), all(10 * c.size(Group::intra));
  c.allreduce(v.data(), 10, DType::f32, ReduceOp::sum, Group::world);
  c.broadcast(v.data(), 3, DType::f32, 0, Group::intra);
  c.allgather(v.data(), all.data(), 10, DType::f32, Group::intra);
  c.barrier(Group::world);
  const auto& r = c.calls();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].op, CollectiveOp::allreduce);
  EXPECT_EQ(r[0].group, Group::world);
  EXPECT_EQ(r[0].bytes, 40u);
  EXPECT_EQ(r[1].op, CollectiveOp::broadcast);
  EXPECT_EQ(r[1].bytes, 12u);
  EXPECT_EQ(r[2].op, CollectiveOp::allgather);
  EXPECT_EQ(r[2].bytes, 40u);  // this rank's block
  EXPECT_EQ(r[3].op, CollectiveOp::barrier);
  for (const auto& x : r) EXPECT_GE(x.seconds, 0);
}

// Every check by name, for a transport's tests (one test per check).
#define PRUNEX_COMMUNICATOR_CHECKS(X)                                          \
  X(AllreduceEveryDtypeAndOp, allreduce_every_dtype_and_op)                    \
  X(AsyncAllreducesCompleteInAnyOrder, async_allreduces_complete_in_any_order) \
  X(BroadcastFromEveryRoot, broadcast_from_every_root)                         \
  X(AllgatherInRankOrder, allgather_in_rank_order)                             \
  X(SendRecvRingInOrder, send_recv_ring_in_order)                              \
  X(OneRecordPerCall, one_record_per_call)

}  // namespace prunex::conformance
