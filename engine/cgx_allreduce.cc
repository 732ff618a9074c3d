#include "engine/cgx_allreduce.h"

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

// Step 1: scatter-reduce-allgather on the intra group.
void sra(Communicator& comm, float* data, const CgxBufferCodec& codec, const CgxReduceOptions& o) {
  const int p = comm.size(Group::intra), me = comm.rank(Group::intra);
  const int64_t n = codec.size();
  auto range = [&](int c) { return CgxBufferCodec::chunk(n, p, c); };
  auto wire = [&](int c) {
    const auto [lo, hi] = range(c);
    return codec.wire_bytes(lo, hi);
  };
  const uint64_t seed = mix(o.seed, static_cast<uint64_t>(comm.world_rank()), 0);
  std::vector<std::vector<uint8_t>> out(p), in(p);
  std::vector<std::unique_ptr<Work>> works;
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    in[c].resize(static_cast<std::size_t>(wire(me)));
    works.push_back(comm.recv(in[c].data(), in[c].size(), DType::u8, c, Group::intra));
  }
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    const auto [lo, hi] = range(c);
    out[c].resize(static_cast<std::size_t>(wire(c)));
    codec.encode(data, lo, hi, o.stochastic, seed + static_cast<uint64_t>(c), out[c].data());
    works.push_back(comm.send(out[c].data(), out[c].size(), DType::u8, c, Group::intra));
  }
  wait_all(works);
  const auto [lo, hi] = range(me);
  for (int c = 0; c < p; ++c)
    if (c != me) codec.decode(in[c].data(), lo, hi, data, true);
  std::vector<uint8_t> sum(static_cast<std::size_t>(wire(me)));
  codec.encode(data, lo, hi, o.stochastic, mix(o.seed, comm.world_rank(), 1), sum.data());
  codec.decode(sum.data(), lo, hi, data, false);  // the owner keeps what the others get
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    in[c].resize(static_cast<std::size_t>(wire(c)));
    works.push_back(comm.recv(in[c].data(), in[c].size(), DType::u8, c, Group::intra));
  }
  for (int c = 0; c < p; ++c)
    if (c != me) works.push_back(comm.send(sum.data(), sum.size(), DType::u8, c, Group::intra));
  wait_all(works);
  for (int c = 0; c < p; ++c) {
    if (c == me) continue;
    const auto [a, b] = range(c);
    codec.decode(in[c].data(), a, b, data, false);
  }
}

// Step 2: the leaders' ring. Returns the quantized chunks (chunk c at offsets[c],
// chunk_offsets of the M-way split).
std::vector<uint8_t> ring(Communicator& comm, float* data, const CgxBufferCodec& codec,
                          const CgxReduceOptions& o, const std::vector<int64_t>& offsets) {
  const int m = comm.size(Group::inter), me = comm.rank(Group::inter);
  const int next = (me + 1) % m, prev = (me + m - 1) % m;
  const int64_t n = codec.size();
  auto range = [&](int c) { return CgxBufferCodec::chunk(n, m, c); };
  std::vector<uint8_t> all(static_cast<std::size_t>(offsets[m]));
  auto chunk_ptr = [&](int c) { return all.data() + offsets[c]; };
  auto chunk_bytes = [&](int c) { return static_cast<std::size_t>(offsets[c + 1] - offsets[c]); };
  std::vector<std::unique_ptr<Work>> works;
  // Reduce-scatter: hop s sends chunk (me - s) and receives chunk (me - s - 1).
  std::vector<uint8_t> in;
  for (int s = 0; s < m - 1; ++s) {
    const int send_c = (me - s + 2 * m) % m, recv_c = (me - s - 1 + 2 * m) % m;
    const auto [slo, shi] = range(send_c);
    codec.encode(data, slo, shi, o.stochastic,
                 mix(o.seed, static_cast<uint64_t>(comm.world_rank()), 2 + s), chunk_ptr(send_c));
    in.resize(chunk_bytes(recv_c));
    works.push_back(comm.recv(in.data(), in.size(), DType::u8, prev, Group::inter));
    works.push_back(
        comm.send(chunk_ptr(send_c), chunk_bytes(send_c), DType::u8, next, Group::inter));
    wait_all(works);
    const auto [rlo, rhi] = range(recv_c);
    codec.decode(in.data(), rlo, rhi, data, true);
  }
  // The owner of chunk (me + 1) quantizes its sum and keeps the dequantized values.
  const int own = (me + 1) % m;
  const auto [olo, ohi] = range(own);
  codec.encode(data, olo, ohi, o.stochastic, mix(o.seed, comm.world_rank(), 1000), chunk_ptr(own));
  codec.decode(chunk_ptr(own), olo, ohi, data, false);
  // All-gather: hop s forwards chunk (me + 1 - s) as received and receives chunk (me - s).
  for (int s = 0; s < m - 1; ++s) {
    const int send_c = (me + 1 - s + 2 * m) % m, recv_c = (me - s + 2 * m) % m;
    works.push_back(
        comm.recv(chunk_ptr(recv_c), chunk_bytes(recv_c), DType::u8, prev, Group::inter));
    works.push_back(
        comm.send(chunk_ptr(send_c), chunk_bytes(send_c), DType::u8, next, Group::inter));
    wait_all(works);
    const auto [rlo, rhi] = range(recv_c);
    codec.decode(chunk_ptr(recv_c), rlo, rhi, data, false);
  }
  return all;
}

}  // namespace

void cgx_allreduce(Communicator& comm, float* data, const CgxBufferCodec& codec,
                   const CgxReduceOptions& opt) {
  const NodeGrouping& g = comm.grouping();
  const int p = g.gpus_per_node, m = g.nodes();
  if (codec.size() == 0) return;
  if (p > 1) sra(comm, data, codec, opt);
  if (m < 2) return;
  std::vector<int64_t> offsets = chunk_offsets(codec, m);
  std::vector<uint8_t> all = comm.is_leader()
                                 ? ring(comm, data, codec, opt, offsets)
                                 : std::vector<uint8_t>(static_cast<std::size_t>(offsets[m]));
  if (p < 2) return;
  comm.broadcast(all.data(), all.size(), DType::u8, 0, Group::intra);
  if (comm.is_leader()) return;
  for (int c = 0; c < m; ++c) {
    const auto [lo, hi] = CgxBufferCodec::chunk(codec.size(), m, c);
    codec.decode(all.data() + offsets[c], lo, hi, data, false);
  }
}

CgxStepBytes cgx_step_bytes(const CgxBufferCodec& codec, int gpus_per_node, int nodes) {
  CgxStepBytes b;
  b.sra_block = static_cast<double>(codec.wire_bytes_split(gpus_per_node)) / gpus_per_node;
  b.ring_block = static_cast<double>(codec.wire_bytes_split(nodes)) / nodes;
  b.broadcast = codec.wire_bytes_split(nodes);
  return b;
}

}  // namespace prunex
