// Per-rank phase timing for live runs: accumulates seconds per phase within an iteration and
// keeps trace events (start relative to the run's common start), so rank 0 can assemble the
// per-rank records of records/run_record.h.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/communicator.h"
#include "engine/phase_timer.h"
#include "records/run_record.h"

namespace prunex {

// Phases travel between ranks as their index in kAllPhases (engine/phases.h).
class PhaseClock : public PhaseTimer {
 public:
  // t0: the run's common start (taken right after a world barrier on every rank).
  // sync_phases: fence() barriers the world and records the wait as sync_wait (measurement
  // mode: communication phases then time the collective alone).
  explicit PhaseClock(double t0, bool sync_phases = false)
      : t0_(t0), sync_(sync_phases), seconds_(kAllPhases.size(), 0.0) {}

  // Accumulates into this iteration and adds a trace event.
  void add(Phase phase, double start, double seconds) override;
  void fence(Communicator& comm) override;
  bool sync_phases() const { return sync_; }
  // --inject-failure: on reaching `phase` in outer iteration `iteration` (counted by
  // take_iteration), print one line naming `rank` and exit with status 1 at once (no
  // destructors, no MPI finalize: as a crashed or killed process ends).
  void arm_failure(int rank, int iteration, Phase phase);
  void reached(Phase phase) override;
  // With --sync-phases, every timed step ends by waiting for the device's queued work
  // (wait: e.g. a CUDA device synchronisation; none on the CPU), so each phase is charged the
  // GPU time it queued.
  void set_device_wait(std::function<void()> wait) { device_wait_ = std::move(wait); }
  void settle() noexcept override;

  // This iteration's seconds per phase (kAllPhases order); resets them.
  std::vector<double> take_iteration();
  // All trace events so far, encoded as (phase index, start, duration) triples.
  std::vector<double> encoded_events() const;
  double t0() const { return t0_; }

 private:
  double t0_;
  bool sync_;
  int iteration_ = 1;  // the outer iteration under way
  int fail_rank_ = -1, fail_iteration_ = 0;
  Phase fail_phase_ = Phase::local_compute;
  std::vector<double> seconds_;
  std::vector<double> events_;
  std::function<void()> device_wait_;
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

}  // namespace prunex
