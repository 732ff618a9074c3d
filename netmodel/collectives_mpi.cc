// Open MPI's own collectives (--algo mpi): what a live `prunex train --backend mpi` runs.
//
// The algorithm of each call is Open MPI 4.1's choice (ompi_choice, collectives_mpi_decision.cc);
// the schedules follow the algorithms of ompi/mca/coll/base. Every algorithm step is a round
// of its own: Open MPI's steps are blocking send-receives, not pipelined channels.
//
// Rails: Open MPI's TCP transport (ob1 over one TCP BTL per interface) sends a message's first
// eager-limit bytes on one interface, round robin per peer, and schedules the rest over all
// of them; ranks of a node send the same sequence of messages, so their eager parts take the
// same rail. Where a calibration pools a node's rails into one path (RankLayout::pooled_rails)
// an inter-node flow's eager part costs pooled_rails times its bytes there.
//
// Latency terms per round: one per step, plus two (the rendezvous handshake's round trip:
// request, acknowledgement, then the data) when a step's message is larger than the
// transport's eager limit (btl_tcp_eager_limit 64 KiB between nodes, btl_vader_eager_limit
// 4 KiB inside a node: opal/mca/btl/{tcp,vader}), plus, for recursive doubling, one for the
// ranks' arrival: they leave the previous collective (a barrier) up to a hop apart, and the
// last rank's whole vector still has every exchange to go (measured on the emulated cluster:
// a 4-byte all-reduce, one exchange on 2 ranks, takes 2 one-way latencies; two exchanges on
// 4 ranks take 3). Ring and Rabenseifner absorb the skew: a late rank finds its first block
// already there (2 ranks: 2 steps take 2 latencies, not 3; docs/calibration.md).
#include <algorithm>
#include <map>

#include "netmodel/collectives.h"

namespace prunex::sim {

namespace {

constexpr double kTcpEagerBytes = 64 * 1024;
constexpr double kVaderEagerBytes = 4 * 1024;

// Schedules over member indices 0..n-1 (mapped to world ranks at the end).
class Builder {
 public:
  Builder(const std::vector<int>& members, const RankLayout& layout)
      : m_(members), layout_(layout) {}

  // One blocking step: the flows (index pairs) start together.
  void step(const std::vector<Flow>& flows) {
    Round p;
    double largest = 0;
    bool crosses = false;
    const int rails = std::max(1, layout_.pooled_rails);
    for (const auto& f : flows) {
      if (f.bytes <= 0) continue;
      const bool across = node(m_[f.src]) != node(m_[f.dst]);
      // On a pooled path the eager part, on one rail, takes `rails` times its share.
      const double wire =
          across ? std::min(f.bytes, kTcpEagerBytes) * (rails - 1) + f.bytes : f.bytes;
      p.flows.push_back({m_[f.src], m_[f.dst], wire});
      largest = std::max(largest, f.bytes);
      crosses = crosses || across;
    }
    if (p.flows.empty()) return;
    p.latency_steps = 1 + (largest > (crosses ? kTcpEagerBytes : kVaderEagerBytes) ? 2 : 0);
    s_.push_back(std::move(p));
  }
  void exchange(std::vector<Flow>& flows, int a, int b, double bytes) {
    flows.push_back({a, b, bytes});
    flows.push_back({b, a, bytes});
  }
  // arrival: the ranks' arrival skew, one term on the first step that crosses nodes (the
  // skew is a node-to-node latency), else on the first step.
  Schedule finish(bool arrival) {
    if (s_.empty()) return {};
    if (!arrival) return std::move(s_);
    auto first = std::find_if(s_.begin(), s_.end(), [&](const Round& p) {
      return std::any_of(p.flows.begin(), p.flows.end(),
                         [&](const Flow& f) { return node(f.src) != node(f.dst); });
    });
    (first != s_.end() ? *first : s_.front()).latency_steps += 1;
    return std::move(s_);
  }

 private:
  int node(int rank) const { return rank / layout_.gpus_per_node; }
  const std::vector<int>& m_;
  RankLayout layout_;
  Schedule s_;
};

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Recursive doubling (coll_base_allreduce.c): the first 2r ranks (r = n - 2^k) fold into r,
// log2(2^k) exchanges of the whole vector, the result sent back to the folded ranks.
void allreduce_recursive_doubling(Builder& b, int n, double s) {
  const int pof2 = floor_pow2(n), rem = n - pof2;
  auto real = [&](int v) { return v < rem ? 2 * v + 1 : v + rem; };
  std::vector<Flow> f;
  for (int i = 0; i < rem; ++i) f.push_back({2 * i, 2 * i + 1, s});
  b.step(f);
  for (int mask = 1; mask < pof2; mask <<= 1) {
    f.clear();
    for (int v = 0; v < pof2; ++v)
      if ((v & mask) == 0) b.exchange(f, real(v), real(v ^ mask), s);
    b.step(f);
  }
  f.clear();
  for (int i = 0; i < rem; ++i) f.push_back({2 * i + 1, 2 * i, s});
  b.step(f);
}

// Rabenseifner (allreduce_intra_redscat_allgather): fold to 2^k ranks (halves exchanged, then
// one half sent), reduce-scatter by recursive halving (distance 1, 2, 4, ...: S/2, S/4, ...),
// all-gather back by recursive doubling, the result sent to the folded ranks.
void allreduce_rabenseifner(Builder& b, int n, double s) {
  const int pof2 = floor_pow2(n), rem = n - pof2;
  auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
  std::vector<Flow> f;
  for (int i = 0; i < rem; ++i) b.exchange(f, 2 * i, 2 * i + 1, s / 2);
  b.step(f);
  f.clear();
  for (int i = 0; i < rem; ++i) f.push_back({2 * i + 1, 2 * i, s / 2});
  b.step(f);
  std::vector<int> masks;
  for (int mask = 1; mask < pof2; mask <<= 1) masks.push_back(mask);
  double part = s;
  for (int mask : masks) {  // reduce-scatter
    part /= 2;
    f.clear();
    for (int v = 0; v < pof2; ++v)
      if ((v & mask) == 0) b.exchange(f, real(v), real(v ^ mask), part);
    b.step(f);
  }
  for (auto it = masks.rbegin(); it != masks.rend(); ++it) {  // all-gather
    f.clear();
    for (int v = 0; v < pof2; ++v)
      if ((v & *it) == 0) b.exchange(f, real(v), real(v ^ *it), part);
    b.step(f);
    part *= 2;
  }
  f.clear();
  for (int i = 0; i < rem; ++i) f.push_back({2 * i, 2 * i + 1, s});
  b.step(f);
}

// Ring (allreduce_intra_ring): 2(n-1) steps, each rank sends one block of S/n to the next.
void allreduce_ring(Builder& b, int n, double s) {
  for (int k = 0; k < 2 * (n - 1); ++k) {
    std::vector<Flow> f;
    for (int i = 0; i < n; ++i) f.push_back({i, (i + 1) % n, s / n});
    b.step(f);
  }
}

// Broadcast trees from member 0, one round per level (store and forward).
void bcast_binomial(Builder& b, int n, double s, int radix) {
  for (int span = 1; span < n; span *= radix) {
    std::vector<Flow> f;
    for (int i = 0; i < span && i < n; ++i)
      for (int j = 1; j < radix && i + j * span < n; ++j) f.push_back({i, i + j * span, s});
    b.step(f);
  }
}
void bcast_binary(Builder& b, int n, double s) {
  for (int first = 0, width = 1; first < n; first += width, width *= 2) {
    std::vector<Flow> f;
    for (int i = first; i < std::min(n, first + width); ++i)
      for (int c : {2 * i + 1, 2 * i + 2})
        if (c < n) f.push_back({i, c, s});
    b.step(f);
  }
}
void bcast_chain(Builder& b, int n, double s) {
  for (int i = 0; i + 1 < n; ++i) b.step({{i, i + 1, s}});
}
void bcast_linear(Builder& b, int n, double s) {
  std::vector<Flow> f;
  for (int i = 1; i < n; ++i) f.push_back({0, i, s});
  b.step(f);
}

// All-gather of one block per rank.
void allgather_recursive_doubling(Builder& b, int n, double block) {
  for (int mask = 1; mask < n; mask <<= 1) {
    std::vector<Flow> f;
    for (int i = 0; i < n; ++i)
      if ((i & mask) == 0) b.exchange(f, i, i ^ mask, block * mask);
    b.step(f);
  }
}
void allgather_bruck(Builder& b, int n, double block) {
  for (int d = 1; d < n; d *= 2) {
    std::vector<Flow> f;
    for (int i = 0; i < n; ++i) f.push_back({i, (i - d + n) % n, block * std::min(d, n - d)});
    b.step(f);
  }
}
void allgather_ring(Builder& b, int n, double block) {
  for (int k = 0; k + 1 < n; ++k) {
    std::vector<Flow> f;
    for (int i = 0; i < n; ++i) f.push_back({i, (i + 1) % n, block});
    b.step(f);
  }
}
// Neighbor exchange (even n): partners alternate between the left and right neighbour; the
// first step swaps one block, the others two.
void allgather_neighbor(Builder& b, int n, double block) {
  for (int k = 0; k < n / 2; ++k) {
    std::vector<Flow> f;
    for (int i = 0; i < n; i += 2) {
      const int a = k % 2 == 0 ? i : i + 1, c = k % 2 == 0 ? i + 1 : (i + 2) % n;
      b.exchange(f, a, c, block * (k == 0 ? 1 : 2));
    }
    b.step(f);
  }
}

}  // namespace

Schedule mpi_schedule(CollectiveOp op, const std::vector<int>& members, const RankLayout& layout,
                      double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0 || op == CollectiveOp::barrier) return {};
  Builder b(members, layout);
  const MpiAlg alg = ompi_choice(op, n, bytes);
  switch (op) {
    case CollectiveOp::allreduce:
      if (alg == MpiAlg::ring) {
        allreduce_ring(b, n, bytes);
      } else if (alg == MpiAlg::rabenseifner) {
        allreduce_rabenseifner(b, n, bytes);
      } else if (alg == MpiAlg::reduce_bcast) {  // binomial reduce to 0, then broadcast
        for (int span = floor_pow2(n - 1); span >= 1; span /= 2) {
          std::vector<Flow> f;
          for (int i = span; i < std::min(n, 2 * span); ++i) f.push_back({i, i - span, bytes});
          b.step(f);
        }
        bcast_binomial(b, n, bytes, 2);
      } else {
        allreduce_recursive_doubling(b, n, bytes);
      }
      break;
    case CollectiveOp::allgather:
      if (alg == MpiAlg::bruck)
        allgather_bruck(b, n, bytes);
      else if (alg == MpiAlg::ring)
        allgather_ring(b, n, bytes);
      else if (alg == MpiAlg::neighbor)
        allgather_neighbor(b, n, bytes);
      else
        allgather_recursive_doubling(b, n, bytes);
      break;
    case CollectiveOp::broadcast:
      if (alg == MpiAlg::linear) {
        bcast_linear(b, n, bytes);
      } else if (alg == MpiAlg::chain) {
        bcast_chain(b, n, bytes);
      } else if (alg == MpiAlg::binary) {
        bcast_binary(b, n, bytes);
      } else if (alg == MpiAlg::binomial) {
        bcast_binomial(b, n, bytes, 2);
      } else if (alg == MpiAlg::knomial) {
        bcast_binomial(b, n, bytes, 4);  // coll_tuned_bcast_knomial_radix = 4
      } else {  // scatter (binomial, halves) + recursive-doubling all-gather of S/n blocks
        for (int span = floor_pow2(n - 1), k = 1; span >= 1; span /= 2, k *= 2) {
          std::vector<Flow> f;
          for (int i = 0; i < n; i += 2 * span)
            if (i + span < n) f.push_back({i, i + span, bytes / k / 2});
          b.step(f);
        }
        if ((n & (n - 1)) == 0)
          allgather_recursive_doubling(b, n, bytes / n);
        else
          allgather_ring(b, n, bytes / n);
      }
      break;
    case CollectiveOp::barrier:
    case CollectiveOp::alltoall:  // not reached: mpi_schedule sends alltoall to the direct one
    case CollectiveOp::send:
    case CollectiveOp::recv:
      break;
  }
  return b.finish(alg == MpiAlg::recursive_doubling);
}

ScheduleLoad schedule_load(const Schedule& s, const RankLayout& layout) {
  ScheduleLoad out;
  const int p = layout.gpus_per_node;
  for (const auto& round : s) {
    out.latency_terms += round.latency_steps;
    // Bytes per directed resource: a node's NIC out/in (one path per node), a GPU's intra port
    // out/in, or (a link per GPU pair) that pair's link in one direction.
    std::map<std::pair<long, int>, double> load;
    for (const auto& f : round.flows) {
      const int a = f.src / p, c = f.dst / p;
      if (a != c) {
        load[{a, 0}] += f.bytes;
        load[{c, 1}] += f.bytes;
      } else if (layout.pair_links) {
        load[{static_cast<long>(f.src) * (1L << 31) + f.dst, 2}] += f.bytes;
      } else {
        load[{f.src, 3}] += f.bytes;
        load[{f.dst, 4}] += f.bytes;
      }
    }
    double most = 0;
    for (const auto& [key, bytes] : load) most = std::max(most, bytes);
    out.bytes += most;
  }
  return out;
}

}  // namespace prunex::sim
