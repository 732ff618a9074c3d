// NCCL's double binary tree: two trees over the same ranks, each carrying half the data;
// a rank that is inner in one tree is a leaf in the other, so every rank sends and receives
// at most 2S per direction (S for n = 2). All-reduce = reduce up + broadcast down,
// pipelined: every tree edge carries S/2 up and S/2 down concurrently, and the pipeline's
// fill costs 2 x depth latency terms.
//
// Over nodes of several ranks the tree is NCCL's (src/graph/connect.cc, trees.cc): in every
// node a chain through its ranks, and the double binary tree over the nodes joins the chains'
// first ranks (the heads). NCCL builds the tree per channel and duplicates the channels, one
// copy per tree, so both trees of a channel run through the same chain and the same NIC.
// Channels as the ring's: min(rails, ranks a node), each entering the node at its own rail
// (node_channel_paths). NCCL's default pattern (BALANCED_TREE) attaches a node's first child
// to the chain's second rank over the head's NIC; here every tree edge ends at the head,
// which moves no NIC bytes and only the second rank's one hop a level (NCCL's own cost model
// leaves it out too).
#include <algorithm>

#include "netmodel/collectives.h"

namespace prunex::sim {

namespace {

// Tree 0: the binary tree on bit patterns (root 0, whose one child is the largest power of
// two below n; rank r's parent clears r's lowest set bit and sets the next one, falling back
// to only clearing it when that is out of range).
int tree0_parent(int r, int n) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

}  // namespace

int btree_parent(int r, int n, int tree) {
  if (tree == 0) return tree0_parent(r, n);
  if (n % 2 == 0) {  // tree 1 mirrors tree 0
    const int p = tree0_parent(n - 1 - r, n);
    return p < 0 ? -1 : n - 1 - p;
  }
  const int p = tree0_parent((r - 1 + n) % n, n);  // odd n: tree 1 is tree 0 shifted by one
  return p < 0 ? -1 : (p + 1) % n;
}

int btree_depth(int n, int tree) {
  int depth = 0;
  for (int r = 0; r < n; ++r) {
    int d = 0;
    for (int x = r; btree_parent(x, n, tree) >= 0; x = btree_parent(x, n, tree)) ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

namespace {

// Chains in the nodes, a double binary tree over their heads (the file's comment). Channel k:
// S/C, each tree S/2C; a chain edge carries both trees' halves each way (S/C), a tree edge
// between heads S/2C each way per tree. Latency: twice the longest path from a rank up to a
// root (the chain to its head, then head to head up the tree), over the leaves of each tree.
Schedule nccl_tree_allreduce(const std::vector<std::vector<int>>& per_node,
                             const RankLayout& layout, double bytes) {
  const int nodes = static_cast<int>(per_node.size());
  const int m = static_cast<int>(per_node.front().size());
  const int channels = std::min(std::max(1, layout.rails), m);
  Round round;
  round.nccl_tree_hops = true;
  round.chain_weight = 2;
  round.latency_steps = 2 * (m - 1 + std::max(btree_depth(nodes, 0), btree_depth(nodes, 1)));
  const auto node_chains = node_channel_orders(per_node, layout, channels);  // head first
  const double per_channel = bytes / channels;
  for (int k = 0; k < channels; ++k) {
    for (int a = 0; a < nodes; ++a) {
      const auto& chain = node_chains[a][k];
      for (int i = 0; i + 1 < m; ++i) {
        round.flows.push_back({chain[i + 1], chain[i], per_channel});  // reduce, toward the head
        round.flows.push_back({chain[i], chain[i + 1], per_channel});  // broadcast
      }
    }
    for (int tree = 0; tree < 2; ++tree) {
      std::vector<bool> has_child(nodes, false);
      for (int a = 0; a < nodes; ++a) {
        const int parent = btree_parent(a, nodes, tree);
        if (parent < 0) continue;
        has_child[parent] = true;
        const int head = node_chains[a][k].front(), up = node_chains[parent][k].front();
        round.flows.push_back({head, up, per_channel / 2});
        round.flows.push_back({up, head, per_channel / 2});
      }
      for (int a = 0; a < nodes; ++a) {
        if (has_child[a]) continue;
        const auto& chain = node_chains[a][k];
        round.latency_chains.emplace_back();
        auto& path = round.latency_chains.back();
        for (int i = m - 1; i > 0; --i) path.emplace_back(chain[i], chain[i - 1]);
        for (int x = a; btree_parent(x, nodes, tree) >= 0; x = btree_parent(x, nodes, tree))
          path.emplace_back(node_chains[x][k].front(),
                            node_chains[btree_parent(x, nodes, tree)][k].front());
      }
    }
  }
  return {round};
}

}  // namespace

Schedule tree_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  const auto per_node = members_by_node(members, layout.gpus_per_node);
  if (whole_nodes(per_node)) return nccl_tree_allreduce(per_node, layout, bytes);
  Round round;
  round.nccl_tree_hops = true;
  round.latency_steps = 2 * std::max(btree_depth(n, 0), btree_depth(n, 1));
  for (int tree = 0; tree < 2; ++tree)
    for (int r = 0; r < n; ++r) {
      const int parent = btree_parent(r, n, tree);
      if (parent < 0) continue;
      round.flows.push_back({members[r], members[parent], bytes / 2});  // reduce
      round.flows.push_back({members[parent], members[r], bytes / 2});  // broadcast
    }
  return {round};
}

// Broadcast from member 0 down tree 0 (pipelined): depth latency terms; an inner rank sends
// S to each of its (at most two) children.
Schedule direct_alltoall(const std::vector<int>& members, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  Round round;
  round.latency_steps = 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) round.flows.push_back({members[i], members[j], bytes});
  return {round};
}

Schedule tree_broadcast(const std::vector<int>& members, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  Round round;
  round.latency_steps = btree_depth(n, 0);
  for (int r = 1; r < n; ++r)
    round.flows.push_back({members[btree_parent(r, n, 0)], members[r], bytes});
  return {round};
}

}  // namespace prunex::sim
