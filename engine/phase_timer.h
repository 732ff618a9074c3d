// Where the engine reports how long each phase took. Live runs implement it with a per-rank
// clock (workloads/train/phase_clock.h); tests may pass a no-op.
#pragma once

#include "engine/communicator.h"
#include "engine/phases.h"

namespace prunex {

class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  virtual void add(Phase phase, double start, double seconds) = 0;

  // Called by every rank before and after each communication phase. A timer that separates
  // waiting from communicating (PhaseClock with --sync-phases) barriers the world here and
  // reports the wait as phase::sync_wait, so the phase between two fences times its
  // collective alone: not the slowest rank's late arrival (the fence before), and not the CPU
  // that ranks which finished first take for the compute that follows while others still
  // finish theirs (the fence after; on an oversubscribed host that costs whole scheduler
  // ticks). Default: nothing.
  virtual void fence(Communicator& /*comm*/) {}

  // A rank reaches `phase` (time() calls it first; ranks that sit a phase out, such as the
  // followers during the leaders' inter-node all-reduce, call it where the phase begins).
  // PhaseClock fails here on purpose under --inject-failure. Default: nothing.
  virtual void reached(Phase /*phase*/) {}

  // Times fn() as `phase`.
  template <typename Fn>
  auto time(Phase phase, Fn&& fn) {
    reached(phase);
    struct Scope {
      PhaseTimer& t;
      Phase p;
      double start = now_seconds();
      ~Scope() { t.add(p, start, now_seconds() - start); }
    } scope{*this, phase};
    return fn();
  }
};

class NullPhaseTimer : public PhaseTimer {
 public:
  void add(Phase, double, double) override {}
};

}  // namespace prunex
