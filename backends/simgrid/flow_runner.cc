// SimCluster::run_flows: flows as detached SimGrid comms started by one actor per batch.
//
// SimGrid 3.32 keeps detached comms (every host-to-host comm is one) in one list and scans it
// whenever one finishes, so a run's cost grows with the square of its concurrent comms.
// Flows that share no link cannot influence each other, so the flows are split into
// link-disjoint components and simulated in small batches of whole components (each batch
// its own engine run): the same times, far less work for phases made of many small
// independent parts (every node's intra-node ring, every pair of a ring step). Batches of
// 256 rather than 2,048 flows (with compute split over actors, sim_cluster.cc) took a
// 32,768-GPU DDP iteration from 13.2 s to 4.9 s. A component larger than a batch is still
// simulated whole, at the square of its size (a world double binary tree of 131,072 GPUs is
// one component: more than 12 minutes).
#include <algorithm>
#include <numeric>

#include "backends/simgrid/sim_cluster_impl.h"
#include "engine/error.h"

namespace prunex::sim {

namespace {

constexpr std::size_t kBatchFlows = 256;

struct DisjointSets {
  std::vector<std::size_t> parent;
  explicit DisjointSets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

}  // namespace

std::vector<FlowTiming> SimCluster::run_flows(const std::vector<Flow>& flows,
                                              bool align_transfers) {
  const int n = world_size();
  std::vector<FlowTiming> out(flows.size());
  double max_latency = 0;
  DisjointSets sets(flows.size());
  std::unordered_map<const sg4::Link*, std::size_t> user;  // a flow using each link
  std::vector<std::size_t> live;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    PRUNEX_CHECK(f.src >= 0 && f.src < n && f.dst >= 0 && f.dst < n && f.src != f.dst, "flow ",
                 f.src, " -> ", f.dst, " in a world of ", n);
    out[i].route_latency_s = impl_->route_latency(f.src, f.dst);
    max_latency = std::max(max_latency, out[i].route_latency_s);
    if (f.bytes < 1) continue;
    live.push_back(i);
    for (const auto* l : impl_->platform.route_links(f.src, f.dst)) {
      auto [it, fresh] = user.emplace(l, i);
      if (!fresh) sets.join(i, it->second);
      impl_->link_bytes[l] += static_cast<double>(static_cast<uint64_t>(f.bytes + 0.5));
    }
  }
  // Components, then batches of whole components.
  std::unordered_map<std::size_t, std::vector<std::size_t>> components;
  for (std::size_t i : live) components[sets.find(i)].push_back(i);
  std::vector<std::vector<std::size_t>> batches(1);
  for (auto& [root, members] : components) {
    if (!batches.back().empty() && batches.back().size() + members.size() > kBatchFlows)
      batches.emplace_back();
    batches.back().insert(batches.back().end(), members.begin(), members.end());
  }
  for (auto& batch : batches) {
    std::sort(batch.begin(), batch.end());
    if (!batch.empty()) run_batch(flows, batch, align_transfers ? max_latency : -1, out);
  }
  return out;
}

// align_latency >= 0: delay each flow by align_latency - its latency (rtt_fair_sharing only).
void SimCluster::run_batch(const std::vector<Flow>& flows, const std::vector<std::size_t>& batch,
                           double align_latency, std::vector<FlowTiming>& out) {
  // Latency SimGrid itself pays on a flow's route (all of it with rtt_fair_sharing, none
  // otherwise: then the executor adds it).
  const bool inside = impl_->platform.latency_in_simgrid;
  auto delay = [&](std::size_t i) {
    return align_latency >= 0 && inside ? align_latency - out[i].route_latency_s : 0.0;
  };
  std::vector<std::size_t> order(batch);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return delay(a) < delay(b); });
  auto& gpus = impl_->platform.gpus;
  const double t0 = sg4::Engine::get_clock();
  // One actor starts every flow of the batch, host to host, in order of their delays,
  // detached; times are read after the run. (Not an actor per GPU or node: each needs its
  // own stack and guard pages, and the process's mappings ran out at 32,768 GPUs.)
  std::vector<sg4::CommPtr> comms(flows.size());
  sg4::Actor::create("flows", gpus.front(), [&, t0] {
    for (std::size_t i : order) {
      const double wait = t0 + delay(i) - sg4::Engine::get_clock();
      if (wait > 1e-12) sg4::this_actor::sleep_for(wait);
      comms[i] = sg4::Comm::sendto_init(gpus[flows[i].src], gpus[flows[i].dst]);
      comms[i]->set_payload_size(static_cast<uint64_t>(flows[i].bytes + 0.5));
      comms[i]->detach();
    }
  });
  impl_->engine->run();
  for (std::size_t i : batch) {
    FlowTiming& t = out[i];
    t.seconds = comms[i]->get_finish_time() - comms[i]->get_start_time() +
                (inside ? 0.0 : t.route_latency_s);
    t.delivered_bytes = static_cast<double>(static_cast<uint64_t>(flows[i].bytes + 0.5)) -
                        comms[i]->get_remaining();
  }
}

}  // namespace prunex::sim
