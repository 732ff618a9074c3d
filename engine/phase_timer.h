// Where the engine reports how long each phase took. Live runs implement it with a per-rank
// clock (workloads/train/phase_clock.h); tests may pass a no-op.
#pragma once

#include "engine/communicator.h"
#include "engine/phases.h"

namespace prunex {

class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  // `seconds` of work in `phase` from `start`: a step of the rank's plan (time()).
  virtual void add(Phase phase, double start, double seconds) = 0;
  // The same time, spent waiting for work this rank started in an earlier step of `phase`
  // (wait()): it counts as the phase, and it is no step of its own. Default: add().
  virtual void add_wait(Phase phase, double start, double seconds) { add(phase, start, seconds); }

  // Called by every rank before and after each communication phase. A timer that separates
  // waiting from communicating (PhaseClock with --sync-phases) barriers the world here and
  // reports the wait as Phase::sync_wait, so the phase between two fences times its
  // collective alone: not the slowest rank's late arrival (the fence before), and not the CPU
  // that ranks which finished first take for the compute that follows while others still
  // finish theirs (the fence after; on an oversubscribed host that costs whole scheduler
  // ticks). Default: nothing.
  virtual void fence(Communicator& /*comm*/) {}

  // A rank reaches `phase` (time() calls it first; ranks that sit a phase out, such as the
  // followers during the leaders' inter-node all-reduce, call it where the phase begins).
  // PhaseClock fails here on purpose under --inject-failure. Default: nothing.
  virtual void reached(Phase /*phase*/) {}

  // Called at the end of every timed step, before its end time is read. A timer of a GPU run
  // under --sync-phases waits there for the device's queued work: LibTorch and the
  // device-native strategies return before their kernels finish, and without the wait that
  // work would be charged to whichever later step waits for the device (a collective). It
  // must not throw. Default: nothing.
  virtual void settle() noexcept {}

  // Times fn() as a step in `phase`.
  template <typename Fn>
  auto time(Phase phase, Fn&& fn) {
    reached(phase);
    return timed(phase, false, fn);
  }
  // Times fn() as the completion of an earlier step in `phase` (a pipelined bucket's
  // all-reduce, started when the bucket was packed and waited for before its broadcast).
  template <typename Fn>
  auto wait(Phase phase, Fn&& fn) {
    return timed(phase, true, fn);
  }

 private:
  template <typename Fn>
  auto timed(Phase phase, bool waiting, Fn& fn) {
    struct Scope {
      PhaseTimer& t;
      Phase p;
      bool waiting;
      double start = now_seconds();
      ~Scope() {
        t.settle();
        const double seconds = now_seconds() - start;
        waiting ? t.add_wait(p, start, seconds) : t.add(p, start, seconds);
      }
    } scope{*this, phase, waiting};
    return fn();
  }
};

class NullPhaseTimer : public PhaseTimer {
 public:
  void add(Phase, double, double) override {}
};

}  // namespace prunex
