// What a simulation will need in memory, estimated from the platform size and the plan
// before any work, and what this machine can give it: a platform beyond the machine ends
// with one usage error (exit 2) instead of an out-of-memory kill half-way.
#pragma once

namespace prunex::sim {

// Peak resident bytes of `prunex simulate` for nodes x gpus_per_node GPUs and `iterations`
// recorded iterations (0: none recorded, as a sweep point). Fitted, conservatively, to the
// peaks measured with /usr/bin/time on puhti scaled out
// (results/log/2026-11-25-simulator-at-131072-gpus.md): a
// fixed 200 MiB (libraries, layer tables), per node 8 KiB + 4 KiB per GPU + 4 KiB per pair
// of its GPUs (hosts, NICs, NVLink pairs, switch ports in SimGrid), and 256 B per GPU per
// recorded iteration (per-rank phase times in memory and in metrics.json).
double estimate_simulation_bytes(long nodes, long gpus_per_node, long iterations);

// What the machine can give it: host/host_memory.h.

}  // namespace prunex::sim
