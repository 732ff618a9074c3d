// Per-rank phase timing for live runs: accumulates seconds per phase within an iteration and
// keeps trace events (start relative to the run's common start), so rank 0 can assemble the
// per-rank records of analysis/metrics.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/metrics.h"
#include "engine/communicator.h"
#include "engine/phase_timer.h"

namespace prunex {

// Every phase a live run may report, in a fixed order (the index is the wire format).
const std::vector<std::string>& live_phase_names();
int live_phase_index(const std::string& name);

class PhaseClock : public PhaseTimer {
 public:
  // t0: the run's common start (taken right after a world barrier on every rank).
  // sync_phases: fence() barriers the world and records the wait as sync_wait (measurement
  // mode: communication phases then time the collective alone).
  explicit PhaseClock(double t0, bool sync_phases = false)
      : t0_(t0), sync_(sync_phases), seconds_(live_phase_names().size(), 0.0) {}

  // Accumulates into this iteration and adds a trace event.
  void add(const char* phase, double start, double seconds) override;
  void fence(Communicator& comm) override;
  bool sync_phases() const { return sync_; }

  // This iteration's seconds per phase (live_phase_names() order); resets them.
  std::vector<double> take_iteration();
  // All trace events so far, encoded as (phase index, start, duration) triples.
  std::vector<double> encoded_events() const;
  double t0() const { return t0_; }

 private:
  double t0_;
  bool sync_;
  std::vector<double> seconds_;
  std::vector<double> events_;
};

// Collective helpers for metrics (their traffic is not counted: call them after the
// iteration's bytes were read from the communicator's call records).
// Gathers one fixed-size double vector from every rank (world), rank-major.
std::vector<double> gather_doubles(Communicator& comm, const std::vector<double>& mine);
// Gathers variable-length vectors (padded to the longest) from every rank.
std::vector<std::vector<double>> gather_ragged(Communicator& comm, const std::vector<double>& mine);

// Fills it.phase_seconds from the gathered per-rank seconds (only phases some rank used).
void set_phase_seconds(IterationRecord& it, const std::vector<double>& gathered, int ranks);
// Decodes every rank's events into trace events.
std::vector<TraceEvent> decode_events(const std::vector<std::vector<double>>& per_rank);
// Sums the bytes this rank's recorded calls moved, per tier.
TierBytes tier_bytes(const std::vector<CallRecord>& calls);

}  // namespace prunex
