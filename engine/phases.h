// The phases of an iteration, shared by live runs, simulations, metrics and traces: one
// enum, one name table (phase_name) and one parser (parse_phase). Records hold the enum;
// names exist only in JSON (metrics.json, trace.json, calibration files), and metrics.json
// lists the communication phases (summary.communication_phases) so readers in other
// languages take them from the record instead of a copy of this table.
#pragma once

#include <array>
#include <string_view>

namespace prunex {

enum class Phase {
  local_compute,
  intra_allreduce,
  projection,
  mask_sync,
  pack,
  inter_allreduce,
  unpack,
  broadcast,
  dual_update,
  // Baselines.
  allreduce,
  allgather,
  compress,
  // Measurement mode (--sync-phases): waiting at a barrier for the group's slowest rank
  // before a communication phase (load imbalance, not communication).
  sync_wait,
};

inline constexpr std::array<Phase, 13> kAllPhases = {
    Phase::local_compute, Phase::intra_allreduce, Phase::projection, Phase::mask_sync,
    Phase::pack,          Phase::inter_allreduce, Phase::unpack,     Phase::broadcast,
    Phase::dual_update,   Phase::allreduce,       Phase::allgather,  Phase::compress,
    Phase::sync_wait};

constexpr std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::local_compute:
      return "local_compute";
    case Phase::intra_allreduce:
      return "intra_allreduce";
    case Phase::projection:
      return "projection";
    case Phase::mask_sync:
      return "mask_sync";
    case Phase::pack:
      return "pack";
    case Phase::inter_allreduce:
      return "inter_allreduce";
    case Phase::unpack:
      return "unpack";
    case Phase::broadcast:
      return "broadcast";
    case Phase::dual_update:
      return "dual_update";
    case Phase::allreduce:
      return "allreduce";
    case Phase::allgather:
      return "allgather";
    case Phase::compress:
      return "compress";
    case Phase::sync_wait:
      return "sync_wait";
  }
  return "?";
}

// UsageError naming the text and the valid names.
Phase parse_phase(std::string_view name);
// The phase called `name`, or false when no phase is (records written by other versions).
bool find_phase(std::string_view name, Phase& out);

// Phases that move data between ranks (their times make up "communication").
constexpr bool is_communication(Phase p) {
  return p == Phase::intra_allreduce || p == Phase::mask_sync || p == Phase::inter_allreduce ||
         p == Phase::broadcast || p == Phase::allreduce || p == Phase::allgather;
}
// The same for a name read from a record; unknown names are not communication.
inline bool is_communication(std::string_view name) {
  Phase p;
  return find_phase(name, p) && is_communication(p);
}

}  // namespace prunex
