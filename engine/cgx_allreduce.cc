#include "engine/cgx_allreduce.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/error.h"

namespace prunex {
namespace {

uint64_t mix(uint64_t seed, uint64_t a, uint64_t b) {
  return seed * 0x9e3779b97f4a7c15ull ^ (a + 1) * 0xbf58476d1ce4e5b9ull ^
         (b + 1) * 0x94d049bb133111ebull;
}

// Wire offsets of the m chunks of the buffer, one past the last at [m].
std::vector<int64_t> chunk_offsets(const CgxBufferCodec& codec, int m) {
  std::vector<int64_t> offsets(m + 1, 0);
  for (int c = 0; c < m; ++c) {
    const auto [lo, hi] = CgxBufferCodec::chunk(codec.size(), m, c);
    offsets[c + 1] = offsets[c] + codec.wire_bytes(lo, hi);
  }
  return offsets;
}

void wait_all(std::vector<std::unique_ptr<Work>>& works) {
  for (auto& w : works) w->wait();
  works.clear();
}

// What one call needs beside the communicator: the codec, its kernels and their scratch.
struct Ctx {
  const CgxBufferCodec& codec;
  const CgxReduceOptions& o;
  PeerKernels& k;
  CgxScratch& scratch;
  uint8_t* take(int64_t bytes) { return scratch.take(k.memory(), bytes); }
};

// Step 1: scatter-reduce-allgather on the intra group.
void sra(Communicator& comm, float* data, Ctx& x) {
  const int p = comm.size(Group::intra), me = comm.rank(Group::intra);
  const int64_t n = x.codec.size();
  auto range = [&](int c) { return CgxBufferCodec::chunk(n, p, c); };
  auto wire = [&](int c) {
    const auto [lo, hi] = range(c);
    return x.codec.wire_bytes(lo, hi);
  };
  const uint64_t seed = mix(x.o.seed, static_cast<uint64_t>(comm.world_rank()), 0);
  std::vector<uint8_t*> out(p), in(p);
  std::vector<std::unique_ptr<Work>> works;
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    in[c] = x.take(wire(me));
    works.push_back(comm.recv(in[c], wire(me), DType::u8, c, Group::intra));
  }
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    const auto [lo, hi] = range(c);
    out[c] = x.take(wire(c));
    x.codec.encode(data, lo, hi, x.o.stochastic, seed + static_cast<uint64_t>(c), out[c], x.k);
    works.push_back(comm.send(out[c], wire(c), DType::u8, c, Group::intra));
  }
  wait_all(works);
  const auto [lo, hi] = range(me);
  for (int c = 0; c < p; ++c)
    if (c != me) x.codec.decode(in[c], lo, hi, data, true, x.k);
  uint8_t* sum = x.take(wire(me));
  x.codec.encode(data, lo, hi, x.o.stochastic, mix(x.o.seed, comm.world_rank(), 1), sum, x.k);
  x.codec.decode(sum, lo, hi, data, false, x.k);  // the owner keeps what the others get
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    in[c] = x.take(wire(c));
    works.push_back(comm.recv(in[c], wire(c), DType::u8, c, Group::intra));
  }
  for (int c = 0; c < p; ++c)
    if (c != me) works.push_back(comm.send(sum, wire(me), DType::u8, c, Group::intra));
  wait_all(works);
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    const auto [a, b] = range(c);
    x.codec.decode(in[c], a, b, data, false, x.k);
  }
}

// Step 2: the leaders' ring into `all`, the quantized chunks (chunk c at offsets[c],
// chunk_offsets of the M-way split).
void ring(Communicator& comm, float* data, Ctx& x, const std::vector<int64_t>& offsets,
          uint8_t* all) {
  const int m = comm.size(Group::inter), me = comm.rank(Group::inter);
  const int next = (me + 1) % m, prev = (me + m - 1) % m;
  const int64_t n = x.codec.size();
  auto range = [&](int c) { return CgxBufferCodec::chunk(n, m, c); };
  auto chunk_ptr = [&](int c) { return all + offsets[c]; };
  auto chunk_bytes = [&](int c) { return static_cast<std::size_t>(offsets[c + 1] - offsets[c]); };
  std::vector<std::unique_ptr<Work>> works;
  int64_t largest = 0;
  for (int c = 0; c < m; ++c) largest = std::max<int64_t>(largest, chunk_bytes(c));
  uint8_t* in = x.take(largest);
  // Reduce-scatter: hop s sends chunk (me - s) and receives chunk (me - s - 1).
  for (int s = 0; s < m - 1; ++s) {
    const int send_c = (me - s + 2 * m) % m, recv_c = (me - s - 1 + 2 * m) % m;
    const auto [slo, shi] = range(send_c);
    x.codec.encode(data, slo, shi, x.o.stochastic,
                   mix(x.o.seed, static_cast<uint64_t>(comm.world_rank()), 2 + s),
                   chunk_ptr(send_c), x.k);
    works.push_back(comm.recv(in, chunk_bytes(recv_c), DType::u8, prev, Group::inter));
    works.push_back(
        comm.send(chunk_ptr(send_c), chunk_bytes(send_c), DType::u8, next, Group::inter));
    wait_all(works);
    const auto [rlo, rhi] = range(recv_c);
    x.codec.decode(in, rlo, rhi, data, true, x.k);
  }
  // The owner of chunk (me + 1) quantizes its sum and keeps the dequantized values.
  const int own = (me + 1) % m;
  const auto [olo, ohi] = range(own);
  x.codec.encode(data, olo, ohi, x.o.stochastic, mix(x.o.seed, comm.world_rank(), 1000),
                 chunk_ptr(own), x.k);
  x.codec.decode(chunk_ptr(own), olo, ohi, data, false, x.k);
  // All-gather: hop s forwards chunk (me + 1 - s) as received and receives chunk (me - s).
  for (int s = 0; s < m - 1; ++s) {
    const int send_c = (me + 1 - s + 2 * m) % m, recv_c = (me - s + 2 * m) % m;
    works.push_back(
        comm.recv(chunk_ptr(recv_c), chunk_bytes(recv_c), DType::u8, prev, Group::inter));
    works.push_back(
        comm.send(chunk_ptr(send_c), chunk_bytes(send_c), DType::u8, next, Group::inter));
    wait_all(works);
    const auto [rlo, rhi] = range(recv_c);
    x.codec.decode(chunk_ptr(recv_c), rlo, rhi, data, false, x.k);
  }
}

}  // namespace

uint8_t* CgxScratch::take(SpaceMemory& memory, int64_t bytes) {
  if (next_ == buffers_.size()) buffers_.emplace_back();
  SpaceBuffer& b = buffers_[next_++];
  if (b.bytes() < bytes || !b.as<uint8_t>()) b = memory.alloc(bytes);
  return b.as<uint8_t>();
}

void cgx_allreduce(Communicator& comm, float* data, const CgxBufferCodec& codec,
                   const CgxReduceOptions& opt, PeerKernels& kernels, CgxScratch& scratch) {
  const NodeGrouping& g = comm.grouping();
  const int p = g.gpus_per_node, m = g.nodes();
  if (codec.size() == 0) return;
  scratch.rewind();
  Ctx x{codec, opt, kernels, scratch};
  if (p > 1) sra(comm, data, x);
  if (m < 2) return;
  const std::vector<int64_t> offsets = chunk_offsets(codec, m);
  uint8_t* all = x.take(offsets[m]);
  if (comm.is_leader()) ring(comm, data, x, offsets, all);
  if (p < 2) return;
  comm.broadcast(all, static_cast<std::size_t>(offsets[m]), DType::u8, 0, Group::intra);
  if (comm.is_leader()) return;
  for (int c = 0; c < m; ++c) {
    const auto [lo, hi] = CgxBufferCodec::chunk(codec.size(), m, c);
    codec.decode(all + offsets[c], lo, hi, data, false, kernels);
  }
}

void cgx_allreduce(Communicator& comm, float* data, const CgxBufferCodec& codec,
                   const CgxReduceOptions& opt) {
  CgxScratch scratch;
  cgx_allreduce(comm, data, codec, opt, host_peer_kernels(), scratch);
}

CgxStepBytes cgx_step_bytes(const CgxBufferCodec& codec, int gpus_per_node, int nodes) {
  CgxStepBytes b;
  b.sra_block = static_cast<double>(codec.wire_bytes_split(gpus_per_node)) / gpus_per_node;
  b.ring_block = static_cast<double>(codec.wire_bytes_split(nodes)) / nodes;
  b.broadcast = codec.wire_bytes_split(nodes);
  return b;
}

}  // namespace prunex
