// NCCL's double binary tree: two trees over the same ranks, each carrying half the data;
// a rank that is inner in one tree is a leaf in the other, so every rank sends and receives
// at most 2S per direction (S for n = 2). All-reduce = reduce up + broadcast down,
// pipelined: every tree edge carries S/2 up and S/2 down concurrently, and the pipeline's
// fill costs 2 x depth latency terms.
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

Schedule tree_allreduce(const std::vector<int>& members, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  Phase phase;
  phase.latency_steps = 2 * std::max(btree_depth(n, 0), btree_depth(n, 1));
  for (int tree = 0; tree < 2; ++tree)
    for (int r = 0; r < n; ++r) {
      const int parent = btree_parent(r, n, tree);
      if (parent < 0) continue;
      phase.flows.push_back({members[r], members[parent], bytes / 2});  // reduce
      phase.flows.push_back({members[parent], members[r], bytes / 2});  // broadcast
    }
  return {phase};
}

// Broadcast from member 0 down tree 0 (pipelined): depth latency terms; an inner rank sends
// S to each of its (at most two) children.
Schedule direct_alltoall(const std::vector<int>& members, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  Phase phase;
  phase.latency_steps = 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) phase.flows.push_back({members[i], members[j], bytes});
  return {phase};
}

Schedule tree_broadcast(const std::vector<int>& members, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  Phase phase;
  phase.latency_steps = btree_depth(n, 0);
  for (int r = 1; r < n; ++r)
    phase.flows.push_back({members[btree_parent(r, n, 0)], members[r], bytes});
  return {phase};
}

}  // namespace prunex::sim
