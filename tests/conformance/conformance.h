// What the conformance tests compare, one rank at a time: the collectives a live iteration
// made against the collective steps of the plan for that iteration, and the phases it worked
// in against the plan's steps that rank takes part in (memory steps included: who packs).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/communicator.h"
#include "engine/phases.h"

namespace prunex::test {

// Measurement fences (barriers) are not plan steps; everything else must match in order.
inline std::vector<CallRecord> without_barriers(const std::vector<CallRecord>& calls) {
  std::vector<CallRecord> out;
  for (const auto& c : calls)
    if (c.op != CollectiveOp::barrier) out.push_back(c);
  return out;
}

inline std::string describe(const CallRecord& c) {
  return std::string(collective_op_name(c.op)) + " " + std::string(group_name(c.group)) + " " +
         std::string(dtype_name(c.dtype)) + " " + std::to_string(c.bytes) + " B";
}

inline std::string describe(const std::vector<CallRecord>& calls) {
  std::string s;
  for (const auto& c : calls) s += "\n  " + describe(c);
  return s;
}

// live == plan: op, group, dtype and bytes of every call, in order.
inline ::testing::AssertionResult same_calls(const std::vector<CallRecord>& live,
                                             const std::vector<CallRecord>& plan) {
  bool same = live.size() == plan.size();
  for (std::size_t i = 0; same && i < live.size(); ++i)
    same = live[i].op == plan[i].op && live[i].group == plan[i].group &&
           live[i].dtype == plan[i].dtype && live[i].bytes == plan[i].bytes;
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "live calls:" << describe(live) << "\nplan calls:" << describe(plan);
}

// A live rank's phases as PhaseTimer::add() saw them: consecutive repeats named once, the
// --sync-phases waits (measurement, not plan steps) left out. Compared with plan_phases().
inline void add_phase(std::vector<Phase>& seen, Phase p) {
  if (p != Phase::sync_wait && (seen.empty() || seen.back() != p)) seen.push_back(p);
}

inline std::string describe(const std::vector<Phase>& phases) {
  std::string s;
  for (Phase p : phases) s += " " + std::string(phase_name(p));
  return s;
}

// live == plan: the same phases in the same order.
inline ::testing::AssertionResult same_phases(const std::vector<Phase>& live,
                                              const std::vector<Phase>& plan) {
  if (live == plan) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "live phases:" << describe(live) << "\nplan phases:" << describe(plan);
}

}  // namespace prunex::test
