// Phase names shared by live runs, simulations, metrics and traces (DESIGN.md).
#pragma once

#include <string_view>

namespace prunex::phase {

inline constexpr const char* local_compute = "local_compute";
inline constexpr const char* intra_allreduce = "intra_allreduce";
inline constexpr const char* projection = "projection";
inline constexpr const char* mask_sync = "mask_sync";
inline constexpr const char* pack = "pack";
inline constexpr const char* inter_allreduce = "inter_allreduce";
inline constexpr const char* unpack = "unpack";
inline constexpr const char* broadcast = "broadcast";
inline constexpr const char* dual_update = "dual_update";
// Baselines.
inline constexpr const char* allreduce = "allreduce";
inline constexpr const char* allgather = "allgather";
inline constexpr const char* compress = "compress";
// Measurement mode (--sync-phases): waiting at a barrier for the group's slowest rank before a
// communication phase (load imbalance, not communication).
inline constexpr const char* sync_wait = "sync_wait";

// Phases that move data between ranks (their times make up "communication").
inline bool is_communication(const char* name) {
  const std::string_view n(name);
  return n == intra_allreduce || n == mask_sync || n == inter_allreduce || n == broadcast ||
         n == allreduce || n == allgather;
}

}  // namespace prunex::phase
