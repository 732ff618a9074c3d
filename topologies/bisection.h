// Fabric arithmetic: per-tier bandwidths, fat-tree port capacity, dragonfly global links and
// the bisection bandwidth. All bandwidths are per direction, in bytes per second.
//
// Bisection bandwidth = the least bandwidth across any cut of the nodes into two halves
// (floor(n/2) and ceil(n/2) nodes), per direction:
//   star       floor(n/2) x rails x min(NIC link, switch port)   (a non-blocking switch)
//   fat_tree   floor(n/2) x min(injection, rails x switch link / blocking)   (levels >= 2:
//              traffic crossing the top level goes through rails / blocking uplinks per node,
//              each a switch-to-switch link; one level: floor(n/2) x injection)
//   dragonfly  min(floor(n/2) x injection, crossing global links x global link bandwidth)
//              with G = groups x routers_per_group x global_links_per_router / 2 global links
//              spread evenly over the g(g-1)/2 group pairs, and the worst cut splitting the
//              groups floor(g/2) | ceil(g/2): crossing = G x floor(g/2) ceil(g/2) / (g(g-1)/2)
//              (= G for g = 2, about G/2 for many groups).
#pragma once

#include "topologies/topology.h"

namespace prunex {

// Bandwidth one GPU can drive into the other GPUs of its node (per direction):
// nvlink_pairs: links_per_pair x (gpus_per_node - 1) x link; switch kinds: the port.
double intra_gpu_bandwidth_Bps(const Topology& t);

// A leaf switch's ports down to NICs at blocking b (down : up ports): up = floor(radix /
// (1 + b)), down = floor(up x b), so the model's blocking is the file's (radix 4 at 2:1 is
// 2 down, 1 up, one port unused; not 2 and 2, physically 1:1).
int fat_tree_leaf_down_ports(int radix, double blocking);

// NIC ports (endpoints) a fat tree of `levels` levels of `radix`-port switches can connect.
// Leaves give fat_tree_leaf_down_ports down; higher levels split ports half up, half down;
// the top level uses all ports down: ports = down_leaf x radix^(L-1) / 2^(L-2) for L >= 2
// (2(k/2)^L when non-blocking), radix for L = 1.
double fat_tree_max_ports(int levels, int radix, double blocking);

// Global links in a dragonfly (each joins two groups).
double dragonfly_global_links(const Fabric& f);

double bisection_bandwidth_Bps(const Topology& t);

}  // namespace prunex
