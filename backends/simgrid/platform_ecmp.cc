// Fat trees with per-flow path selection (ECMP): every leaf's uplinks are separate links and
// each flow that leaves its leaf takes one of them, chosen by a seeded hash of its source and
// destination GPU, and comes down to its destination leaf from the same spine, as an
// Ethernet/RoCE fabric hashes a flow's 5-tuple onto one of its equal-cost paths. Two flows
// that hash onto one uplink share it while another idles; the pooled model (platform.cc)
// spreads them over the whole bundle instead.
//
//   spine 0   spine 1   ...   spine U-1          (U = a leaf's uplinks: per_leaf x rails / b)
//     |  \      |  \            |               leaf l's uplink j: split duplex, up = leaf l
//   [ leaf 0 ] [ leaf 1 ] ...                    to spine j, down = spine j to leaf l
//    NIC rails  NIC rails
//
// A flow from leaf a to leaf b picks j = hash(seed, src, dst) mod U and crosses a's uplink j up
// and b's uplink j down. Above the leaves (3+ levels) the tree is non-blocking as in the
// pooled model: each level-h subtree (h >= 2) has one bundle as fast as its leaves' uplinks,
// crossed when a route leaves it. Latency: the same convention as platform.cc (NIC links carry
// the first switch; each uplink or bundle one switch hop).
//
// One zone holds every GPU, and routes are computed when SimGrid asks (no table of all pairs):
// SimGrid 3.32 lets a zone compute its own routes by overriding get_local_route.
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "backends/simgrid/platform.h"
#include "engine/error.h"

namespace prunex::sim {

namespace {

namespace routing = simgrid::kernel::routing;

class EcmpZone : public routing::NetZoneImpl {
 public:
  EcmpZone(const Topology& t, const RunShape& shape, std::uint64_t seed, Platform& p)
      : NetZoneImpl("fabric"), t_(t), shape_(shape), seed_(seed), p_(p) {}

  void build(const sg4::NetZone* models_from);

 private:
  sg4::SplitDuplexLink* duplex(const std::string& name, double bw, double lat);
  void push(std::vector<simgrid::kernel::resource::StandardLinkImpl*>& into, double* latency,
            sg4::SplitDuplexLink* l, bool up) const;
  void get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                       routing::Route* into, double* latency) override;

  Topology t_;
  RunShape shape_;
  std::uint64_t seed_;
  Platform& p_;
  int rails_ = 1, per_leaf_ = 1, uplinks_ = 1, top_ = 2;
  std::vector<sg4::SplitDuplexLink*> intra_;  // per node: pair links (P x P) or ports (P)
  std::vector<sg4::SplitDuplexLink*> nics_;   // per node: rails
  std::vector<sg4::SplitDuplexLink*> up_;     // per leaf: U uplinks
  std::vector<std::vector<sg4::SplitDuplexLink*>> bundles_;  // [level h - 2][subtree]
  std::vector<int> rank_of_id_;  // netpoint id -> world rank (-1: not a GPU)
};

sg4::SplitDuplexLink* EcmpZone::duplex(const std::string& name, double bw, double lat) {
  return prunex::sim::duplex(p_, get_iface(), name, bw, lat);
}

void EcmpZone::push(std::vector<simgrid::kernel::resource::StandardLinkImpl*>& into,
                    double* latency, sg4::SplitDuplexLink* l, bool up) const {
  sg4::Link* one = up ? l->get_link_up() : l->get_link_down();
  into.push_back(one->get_impl());
  if (latency) *latency += one->get_latency();
}

void EcmpZone::build(const sg4::NetZone* models_from) {
  copy_models(models_from, get_iface());
  auto* zone = get_iface();
  const int gpn = shape_.gpus_per_node;
  const double speed = std::max(1.0, t_.gpu.effective_flops());
  rails_ = std::max(1, t_.nic.rails);
  per_leaf_ = nodes_per_leaf(t_);
  uplinks_ = ecmp_uplinks_per_leaf(t_);
  const int leaves = (shape_.nodes + per_leaf_ - 1) / per_leaf_;
  top_ = std::max(2, fat_tree_top_level(t_, leaves));
  LinkSpec nic = t_.nic.link;
  nic.latency_s += t_.fabric.link.latency_s;
  const IntraNode& in = t_.intra;
  for (int node = 0; node < shape_.nodes; ++node) {
    const std::string np = "n" + std::to_string(node);
    for (int g = 0; g < gpn; ++g) {
      auto* h = zone->create_host(np + "g" + std::to_string(g), speed);
      h->seal();
      const auto id = h->get_netpoint()->id();
      if (rank_of_id_.size() <= id) rank_of_id_.resize(id + 1, -1);
      rank_of_id_[id] = static_cast<int>(p_.gpus.size());
      p_.gpus.push_back(h);
    }
    if (in.kind == IntraKind::nvlink_pairs) {
      for (int a = 0; a < gpn; ++a)
        for (int b = 0; b < gpn; ++b)
          intra_.push_back(a < b ? duplex(np + "_nvl" + std::to_string(a) + "_" + std::to_string(b),
                                          in.links_per_pair * in.link.bandwidth_Bps,
                                          in.link.latency_s)
                                 : nullptr);
    } else {
      for (int g = 0; g < gpn; ++g)
        intra_.push_back(
            duplex(np + "_port" + std::to_string(g), in.link.bandwidth_Bps, in.link.latency_s / 2));
    }
    for (int r = 0; r < rails_; ++r)
      nics_.push_back(
          duplex(np + "_nic" + std::to_string(r), nic.bandwidth_Bps, nic.latency_s / 2));
  }
  for (int l = 0; l < leaves; ++l)
    for (int j = 0; j < uplinks_; ++j)
      up_.push_back(duplex("leaf" + std::to_string(l) + "_up" + std::to_string(j),
                           t_.fabric_link_Bps(), t_.fabric.link.latency_s));
  const double leaf_bundle =
      per_leaf_ * rails_ * t_.fabric_link_Bps() / std::max(1.0, t_.fabric.blocking);
  for (int h = 2; h < top_; ++h) {
    const int span = fat_tree_subtree_leaves(t_, h);
    bundles_.emplace_back();
    for (int first = 0; first < leaves; first += span)
      bundles_.back().push_back(
          duplex("l" + std::to_string(h) + "_" + std::to_string(first) + "_up",
                 leaf_bundle * (std::min(leaves, first + span) - first), t_.fabric.link.latency_s));
  }
}

// splitmix64 of (seed, src, dst): the flow's equal-cost path.
std::uint64_t flow_hash(std::uint64_t seed, int src, int dst) {
  std::uint64_t x =
      seed ^ (static_cast<std::uint64_t>(src) << 32 | static_cast<std::uint32_t>(dst));
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void EcmpZone::get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                               routing::Route* into, double* latency) {
  const int a = rank_of_id_.at(src->id()), b = rank_of_id_.at(dst->id());
  const int gpn = shape_.gpus_per_node;
  const int na = a / gpn, nb = b / gpn, ga = a % gpn, gb = b % gpn;
  auto& links = into->link_list_;
  if (a == b) return;
  if (na == nb) {
    if (t_.intra.kind == IntraKind::nvlink_pairs) {
      push(links, latency,
           intra_[static_cast<std::size_t>(na) * gpn * gpn + std::min(ga, gb) * gpn +
                  std::max(ga, gb)],
           ga < gb);
    } else {
      push(links, latency, intra_[static_cast<std::size_t>(na) * gpn + ga], true);
      push(links, latency, intra_[static_cast<std::size_t>(nb) * gpn + gb], false);
    }
    return;
  }
  push(links, latency, nics_[static_cast<std::size_t>(na) * rails_ + rail_of_gpu(ga, gpn, rails_)],
       true);
  const int la = na / per_leaf_, lb = nb / per_leaf_;
  if (la != lb) {
    const int j = static_cast<int>(ecmp_path(seed_, a, b, uplinks_));
    push(links, latency, up_[static_cast<std::size_t>(la) * uplinks_ + j], true);
    // Bundles of the subtrees the route leaves, up to below the level that joins them.
    for (int h = 2; h < top_; ++h) {
      const int span = fat_tree_subtree_leaves(t_, h);
      if (la / span == lb / span) break;
      push(links, latency, bundles_[h - 2][la / span], true);
    }
    for (int h = top_ - 1; h >= 2; --h) {
      const int span = fat_tree_subtree_leaves(t_, h);
      if (la / span != lb / span) push(links, latency, bundles_[h - 2][lb / span], false);
    }
    push(links, latency, up_[static_cast<std::size_t>(lb) * uplinks_ + j], false);
  }
  push(links, latency, nics_[static_cast<std::size_t>(nb) * rails_ + rail_of_gpu(gb, gpn, rails_)],
       false);
}

}  // namespace

std::uint64_t ecmp_path(std::uint64_t seed, int src, int dst, int paths) {
  return flow_hash(seed, src, dst) % static_cast<std::uint64_t>(std::max(1, paths));
}

int ecmp_uplinks_per_leaf(const Topology& t) {
  return std::max(1, static_cast<int>(nodes_per_leaf(t) * std::max(1, t.nic.rails) /
                                      std::max(1.0, t.fabric.blocking)));
}

Platform build_ecmp_platform(const Topology& t, const RunShape& shape, bool latency_in_simgrid,
                             std::uint64_t seed) {
  check_fabric_routing(t, FabricRouting::ecmp);
  Platform p;
  p.gpus.reserve(shape.world());
  p.latency_in_simgrid = latency_in_simgrid;
  auto* top = sg4::create_star_zone("top");
  auto* zone = new EcmpZone(t, shape, seed, p);  // owned by SimGrid once parented
  zone->build(top);
  p.fabric_root = zone->get_iface();
  zone->get_iface()->set_parent(top);
  top->seal();
  return p;
}

}  // namespace prunex::sim
