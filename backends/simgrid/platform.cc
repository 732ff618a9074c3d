#include "backends/simgrid/platform.h"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/error.h"

namespace prunex::sim {

sg4::SplitDuplexLink* duplex(Platform& p, sg4::NetZone* zone, const std::string& name, double bw,
                             double lat) {
  PRUNEX_USAGE(bw > 0, "link ", name, ": bandwidth must be > 0 (got ", bw, ")");
  auto* l = zone->create_split_duplex_link(name, bw);
  if (p.latency_in_simgrid) {
    l->set_latency(lat);
  } else {
    p.latency[l->get_link_up()] = lat;
    p.latency[l->get_link_down()] = lat;
  }
  l->seal();
  return l;
}

void copy_models(const sg4::NetZone* from_zone, sg4::NetZone* to_zone) {
  auto* from = from_zone->get_impl();
  auto* to = to_zone->get_impl();
  to->set_network_model(from->get_network_model());
  to->set_cpu_pm_model(from->get_cpu_pm_model());
  to->set_cpu_vm_model(from->get_cpu_vm_model());
  to->set_disk_model(from->get_disk_model());
  to->set_host_model(from->get_host_model());
}

namespace {

using Dir = sg4::LinkInRoute::Direction;

// A chunk: a full zone holding the GPUs of a few consecutive nodes (one host per GPU), their
// intra-node links and NIC rails, and a router standing for the chunk's side of the fabric.
// A LinkSpec latency is one hop end to end (GPU to GPU, node to node through one switch), so
// the two links of a switched hop (port up + port down, NIC up + NIC down) carry half each.
//
//   one node, nvlink_pairs          one node, nvswitch / pcie / loopback
//   g0 ===== g1                     g0  g1  g2  g3
//   || \\  // ||                     |   |   |   |   port links (one per GPU)
//   ||  \\//  ||                    [   switch      ]  (non-blocking, not a resource)
//   ||  //\\  ||
//   g2 ===== g3                     (a link per pair, links_per_pair x bw)
//
//   node a: g0,g1 -- nic0 --+                      +-- nic0 -- g0,g1 :node b
//           g2,g3 -- nic1 --+-- chunk router (gw) -+-- nic1 -- g2,g3
//   (GPU g uses rail rail_of_gpu(g); a route between nodes of one chunk is its rails only)
//
// Routes are explicit for every ordered pair, so a GPU's inter-node traffic takes exactly
// its own rail and never another GPU's port. Chunks rather than one zone per node: SimGrid
// 3.32 scans every host of the platform when it seals a zone.
struct Chunk {
  sg4::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gw = nullptr;
};

// A node's GPUs, its parts that routes between nodes need (per GPU: its rail).
struct NodeParts {
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::SplitDuplexLink*> rails;
};

// The links inside node np: NVLink pairs (one link per pair) or a port per GPU into a switch.
void add_intra_links(const IntraNode& in, const std::string& np, const std::vector<sg4::Host*>& h,
                     sg4::NetZone* zone, Platform& plat) {
  const int gpn = static_cast<int>(h.size());
  if (in.kind == IntraKind::nvlink_pairs) {
    for (int a = 0; a < gpn; ++a)
      for (int b = a + 1; b < gpn; ++b) {
        auto* l = duplex(plat, zone, np + "_nvl" + std::to_string(a) + "_" + std::to_string(b),
                         in.links_per_pair * in.link.bandwidth_Bps, in.link.latency_s);
        zone->add_route(h[a]->get_netpoint(), h[b]->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(l, Dir::UP)}, false);
        zone->add_route(h[b]->get_netpoint(), h[a]->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(l, Dir::DOWN)}, false);
      }
  } else if (gpn > 1) {
    std::vector<sg4::SplitDuplexLink*> ports;
    for (int g = 0; g < gpn; ++g)
      ports.push_back(duplex(plat, zone, np + "_port" + std::to_string(g), in.link.bandwidth_Bps,
                             in.link.latency_s / 2));
    for (int a = 0; a < gpn; ++a)
      for (int b = 0; b < gpn; ++b)
        if (a != b)
          zone->add_route(
              h[a]->get_netpoint(), h[b]->get_netpoint(), nullptr, nullptr,
              {sg4::LinkInRoute(ports[a], Dir::UP), sg4::LinkInRoute(ports[b], Dir::DOWN)}, false);
  }
}

// Node `node`: its GPU hosts, its intra links, its NIC rails to the chunk's gateway.
NodeParts add_node(const Topology& t, const LinkSpec& nic, int node, int gpn, double speed,
                   sg4::NetZone* zone, simgrid::kernel::routing::NetPoint* gw, Platform& plat) {
  const std::string np = "n" + std::to_string(node);
  const int rails = std::max(1, t.nic.rails);
  NodeParts parts;
  for (int g = 0; g < gpn; ++g) {
    parts.hosts.push_back(zone->create_host(np + "g" + std::to_string(g), speed));
    parts.hosts.back()->seal();
    plat.gpus.push_back(parts.hosts.back());
  }
  const auto& h = parts.hosts;
  add_intra_links(t.intra, np, h, zone, plat);
  std::vector<sg4::SplitDuplexLink*> nics;
  for (int r = 0; r < rails; ++r)
    nics.push_back(
        duplex(plat, zone, np + "_nic" + std::to_string(r), nic.bandwidth_Bps, nic.latency_s / 2));
  for (int g = 0; g < gpn; ++g) {
    auto* rail = nics[rail_of_gpu(g, gpn, rails)];
    parts.rails.push_back(rail);
    zone->add_route(h[g]->get_netpoint(), gw, nullptr, nullptr, {sg4::LinkInRoute(rail, Dir::UP)},
                    false);
    zone->add_route(gw, h[g]->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(rail, Dir::DOWN)},
                    false);
  }
  return parts;
}

Chunk build_chunk(const Topology& t, const RunShape& shape, int first, int last,
                  const sg4::NetZone* parent, Platform& plat) {
  const std::string prefix = "c" + std::to_string(first);
  auto* zone = sg4::create_full_zone(prefix);
  zone->set_parent(parent);
  const int gpn = shape.gpus_per_node;
  const double speed = std::max(1.0, t.gpu.effective_flops());
  auto* gw = zone->create_router(prefix + "_gw");

  // NIC rails into the fabric. Every route between nodes crosses at least one switch (the
  // star's switch, a fat-tree leaf, a dragonfly group), whose hop the two NIC links carry
  // half each; on a star the switch port may also be slower than the NIC.
  LinkSpec nic = t.nic.link;
  nic.latency_s += t.fabric.link.latency_s;
  if (t.fabric.kind == FabricKind::star && t.fabric.link.bandwidth_Bps > 0)
    nic.bandwidth_Bps = std::min(nic.bandwidth_Bps, t.fabric.link.bandwidth_Bps);
  std::vector<NodeParts> nodes;
  for (int node = first; node < last; ++node)
    nodes.push_back(add_node(t, nic, node, gpn, speed, zone, gw, plat));
  // Between nodes of the chunk: the source GPU's rail up, the destination GPU's rail down.
  for (std::size_t a = 0; a < nodes.size(); ++a)
    for (std::size_t b = 0; b < nodes.size(); ++b)
      if (a != b)
        for (int g = 0; g < gpn; ++g)
          for (int k = 0; k < gpn; ++k)
            zone->add_route(nodes[a].hosts[g]->get_netpoint(), nodes[b].hosts[k]->get_netpoint(),
                            nullptr, nullptr,
                            {sg4::LinkInRoute(nodes[a].rails[g], Dir::UP),
                             sg4::LinkInRoute(nodes[b].rails[k], Dir::DOWN)},
                            false);
  zone->seal();
  return {zone, gw};
}

// Nodes per chunk: up to 64 GPUs, so a chunk's full routing table stays small.
int chunk_nodes(const RunShape& shape) {
  return std::max(1, 64 / shape.gpus_per_node);
}

// Attaches chunks covering nodes [first, last) to a star `zone` through their routers.
void attach_nodes(const Topology& t, const RunShape& shape, sg4::NetZone* zone, int first, int last,
                  Platform& p) {
  for (int n = first; n < last; n += chunk_nodes(shape)) {
    const Chunk c = build_chunk(t, shape, n, std::min(last, n + chunk_nodes(shape)), zone, p);
    zone->add_route(c.zone->get_netpoint(), nullptr, c.gw, nullptr, {}, true);
  }
}

// Star fabric: one non-blocking switch; the only fabric resources are the NIC rails.
//
//              [ switch ]
//          /      |       \        (NIC rail links, inside the chunks)
//      chunk0   chunk1 ... (nodes 0..k-1, k..2k-1, ...)
void build_star(const Topology& t, const RunShape& shape, sg4::NetZone* root, Platform& p) {
  attach_nodes(t, shape, root, 0, shape.nodes, p);
}

// A subtree of the fabric as SimGrid sees it: its zone and the router its traffic leaves by.
struct Subtree {
  sg4::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gw = nullptr;
};

// A star zone whose gateway is a router in a zone of its own: SimGrid 3.32 resolves a route
// from a host two levels down to a router one level down without the host's own zone (its
// common-ancestor search stops one level short), which would drop the NIC links.
Subtree switch_zone(const std::string& name, const sg4::NetZone* parent) {
  auto* zone = sg4::create_star_zone(name);
  zone->set_parent(parent);
  auto* sw_zone = sg4::create_full_zone(name + "_swz");
  sw_zone->set_parent(zone);
  auto* sw = sw_zone->create_router(name + "_sw");
  sw_zone->seal();
  zone->add_route(sw_zone->get_netpoint(), nullptr, sw, nullptr, {}, true);
  return {zone, sw};
}

// One leaf switch (or dragonfly group) with nodes [first, last): a chunk when it fits in
// one (its router is the switch), else a star of chunks.
Subtree build_leaf(const Topology& t, const RunShape& shape, const std::string& name, int first,
                   int last, const sg4::NetZone* parent, Platform& p) {
  if (last - first <= chunk_nodes(shape)) {
    const Chunk c = build_chunk(t, shape, first, last, parent, p);
    return {c.zone, c.gw};
  }
  Subtree leaf = switch_zone(name, parent);
  attach_nodes(t, shape, leaf.zone, first, last, p);
  leaf.zone->seal();
  return leaf;
}

void attach(sg4::NetZone* parent, const Subtree& child, sg4::SplitDuplexLink* uplink) {
  parent->add_route(child.zone->get_netpoint(), nullptr, child.gw, nullptr,
                    {sg4::LinkInRoute(uplink, Dir::UP)}, true);
}

// A fat tree of L levels: leaves of per_leaf nodes, each reaching its parent through one
// uplink bundle (split duplex, shared by every flow that leaves or enters the leaf; the
// blocking applies here). A subtree of level h (2 <= h < L: a pod at h = 2) holds
// (radix/2)^(h-1) leaves and reaches level h + 1 through a bundle as fast as its leaves'
// together (non-blocking above the leaves); level L is the root. Each bundle carries one
// switch hop each way, so a route whose highest switch is at level h crosses 2h - 1
// switches (the leaf's own hop rides on the NIC links).
//
//                         [ root, level L ]
//                 pod0 //                 \ pod1        (bundles: sum of the leaves')
//              [ level 2 ]               [ level 2 ]
//         leaf0 //      \ leaf1      leaf2 //     \ leaf3  (bundles: per leaf, blocking)
//          [ leaf ]    [ leaf ]      [ leaf ]    [ leaf ]
//          /     \     /    \       ...                    (NIC rails)
//       node0  node1 node2  node3
Subtree build_fat_tree_level(const Topology& t, const RunShape& shape, int level, int first_leaf,
                             int last_leaf, int per_leaf, double leaf_uplink_Bps,
                             sg4::NetZone* parent, Platform& p) {
  const std::string name = "l" + std::to_string(level) + "_" + std::to_string(first_leaf);
  if (level == 1)
    return build_leaf(t, shape, name, first_leaf * per_leaf,
                      std::min(shape.nodes, last_leaf * per_leaf), parent, p);
  Subtree sub = parent ? switch_zone(name, parent) : Subtree{};
  auto* zone = parent ? sub.zone : p.fabric_root;
  const int child_leaves = fat_tree_subtree_leaves(t, level - 1);
  for (int l = first_leaf; l < last_leaf; l += child_leaves) {
    const int end = std::min(last_leaf, l + child_leaves);
    const Subtree child =
        build_fat_tree_level(t, shape, level - 1, l, end, per_leaf, leaf_uplink_Bps, zone, p);
    const double bw = leaf_uplink_Bps * (level - 1 == 1 ? 1 : end - l);
    attach(zone, child,
           duplex(p, zone, "up" + std::to_string(level - 1) + "_" + std::to_string(l), bw,
                  t.fabric.link.latency_s));
    if (level - 1 > 1) child.zone->seal();
  }
  return sub;
}

}  // namespace

std::vector<sg4::Link*> Platform::route_links(int src, int dst) const {
  std::vector<sg4::Link*> links;
  double lat = 0;
  gpus[src]->route_to(gpus[dst], links, &lat);
  return links;
}

double Platform::route_latency(int src, int dst) const {
  std::vector<sg4::Link*> links;
  double lat = 0;
  gpus[src]->route_to(gpus[dst], links, &lat);
  for (const auto* l : links) {
    auto it = latency.find(l);
    if (it != latency.end()) lat += it->second;
  }
  return lat;
}

Platform build_platform(const Topology& t, const RunShape& shape, bool latency_in_simgrid) {
  PRUNEX_USAGE(shape.nodes >= 1, "nodes must be >= 1 (got ", shape.nodes, ")");
  PRUNEX_USAGE(shape.gpus_per_node >= 1, "gpus per node must be >= 1 (got ", shape.gpus_per_node,
               ")");
  Platform p;
  p.gpus.reserve(shape.world());
  p.latency_in_simgrid = latency_in_simgrid;
  // SimGrid 3.32 checks every new host and link name against every zone under the engine's
  // root zone (a walk over all of them), and sealing a zone walks every host under the root:
  // building under the root costs the square of the platform size (65% of a 16,384-GPU run).
  // So the fabric is built detached: an empty root zone ("top") sets up the models, the
  // fabric zone copies them and takes no parent until it is complete, and the walks see only
  // "top". Routes resolve through parent links, which the fabric's subtree has throughout.
  auto* top = sg4::create_star_zone("top");
  auto* root = sg4::create_star_zone("fabric");
  copy_models(top, root);
  p.fabric_root = root;
  const Fabric& f = t.fabric;
  if (f.kind == FabricKind::star || (f.kind == FabricKind::fat_tree && f.levels <= 1)) {
    build_star(t, shape, root, p);
  } else if (f.kind == FabricKind::fat_tree) {
    const int per_leaf = nodes_per_leaf(t);
    // Blocking is down ports : up ports. A leaf's nodes take per_leaf x rails ports down,
    // so it has per_leaf x rails / blocking uplinks, each a switch-to-switch link
    // (fabric.bandwidth_gbits): slower links than the NICs slow cross-leaf traffic.
    const double uplink =
        per_leaf * std::max(1, t.nic.rails) * t.fabric_link_Bps() / std::max(1.0, f.blocking);
    const int leaves = (shape.nodes + per_leaf - 1) / per_leaf;
    // (All nodes under one leaf: still a root above it, whose bundle no route uses.)
    build_fat_tree_level(t, shape, std::max(2, fat_tree_top_level(t, leaves)), 0, leaves, per_leaf,
                         uplink, nullptr, p);
  } else {
    // Dragonfly: a group counts as one switch (its routers are all-to-all; nodes are not
    // placed on routers). A group's global links (routers per group x global links per
    // router) form its bundle; a route between groups crosses the two groups (half of the
    // second switch hop on each bundle).
    const int per_group = nodes_per_group(t, shape.nodes);
    const double global =
        std::max(1, f.radix) * std::max(1, f.global_links_per_router) * t.fabric_link_Bps();
    for (int first = 0, g = 0; first < shape.nodes; first += per_group, ++g) {
      const Subtree group = build_leaf(t, shape, "group" + std::to_string(g), first,
                                       std::min(shape.nodes, first + per_group), root, p);
      attach(root, group,
             duplex(p, root, "group" + std::to_string(g) + "_up", global, f.link.latency_s / 2));
    }
  }
  root->set_parent(top);
  top->seal();
  return p;
}

}  // namespace prunex::sim
