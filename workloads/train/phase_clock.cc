#include "workloads/train/phase_clock.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/error.h"
#include "engine/phases.h"

namespace prunex {

void PhaseClock::add(Phase phase, double start, double seconds) {
  const int i = static_cast<int>(phase);  // kAllPhases order
  seconds_[i] += seconds;
  // Adjacent pieces of the same phase merge into one event (DDP steps, bucket waits).
  const size_t n = events_.size();
  if (n >= 3 && events_[n - 3] == i && start - t0_ - (events_[n - 2] + events_[n - 1]) < 1e-4) {
    events_[n - 1] = (start - t0_) + seconds - events_[n - 2];
    return;
  }
  events_.insert(events_.end(), {static_cast<double>(i), start - t0_, seconds});
}

void PhaseClock::fence(Communicator& comm) {
  if (!sync_) return;
  time(Phase::sync_wait, [&] { comm.barrier(Group::world); });
}

void PhaseClock::settle() noexcept {
  if (!sync_ || !device_wait_) return;
  try {
    device_wait_();
  } catch (...) {  // a device error surfaces again at the next device call
  }
}

void PhaseClock::arm_failure(int rank, int iteration, Phase phase) {
  fail_rank_ = rank;
  fail_iteration_ = iteration;
  fail_phase_ = phase;
}

void PhaseClock::reached(Phase phase) {
  if (fail_rank_ < 0 || iteration_ != fail_iteration_ || phase != fail_phase_) return;
  std::fprintf(stderr, "prunex train: rank %d: injected failure at iteration %d, phase %s\n",
               fail_rank_, iteration_, std::string(phase_name(phase)).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

std::vector<double> PhaseClock::take_iteration() {
  ++iteration_;
  std::vector<double> out(seconds_.size(), 0.0);
  out.swap(seconds_);
  return out;
}

std::vector<double> PhaseClock::encoded_events() const {
  return events_;
}

std::vector<double> gather_doubles(Communicator& comm, const std::vector<double>& mine) {
  std::vector<double> all(mine.size() * comm.size(Group::world));
  comm.allgather(mine.data(), all.data(), mine.size(), DType::f64, Group::world);
  return all;
}

std::vector<std::vector<double>> gather_ragged(Communicator& comm,
                                               const std::vector<double>& mine) {
  const int n = comm.size(Group::world);
  std::vector<double> len{static_cast<double>(mine.size())};
  const std::vector<double> lens = gather_doubles(comm, len);
  const size_t longest = static_cast<size_t>(*std::max_element(lens.begin(), lens.end()));
  std::vector<double> padded(mine);
  padded.resize(std::max<size_t>(longest, 1), 0.0);
  const std::vector<double> all = gather_doubles(comm, padded);
  std::vector<std::vector<double>> out(n);
  for (int r = 0; r < n; ++r)
    out[r].assign(all.begin() + r * padded.size(),
                  all.begin() + r * padded.size() + static_cast<size_t>(lens[r]));
  return out;
}

void set_phase_seconds(IterationRecord& it, const std::vector<double>& gathered, int ranks) {
  const size_t p = kAllPhases.size();
  for (size_t i = 0; i < p; ++i) {
    std::vector<double> per_rank(ranks);
    bool used = false;
    for (int r = 0; r < ranks; ++r) {
      per_rank[r] = gathered[r * p + i];
      used = used || per_rank[r] > 0;
    }
    if (used) it.phase_seconds[kAllPhases[i]] = per_rank;
  }
}

std::vector<TraceEvent> decode_events(const std::vector<std::vector<double>>& per_rank) {
  std::vector<TraceEvent> out;
  for (size_t r = 0; r < per_rank.size(); ++r)
    for (size_t k = 0; k + 2 < per_rank[r].size(); k += 3)
      out.push_back({static_cast<int>(r), kAllPhases[static_cast<size_t>(per_rank[r][k])],
                     per_rank[r][k + 1], per_rank[r][k + 2]});
  return out;
}

}  // namespace prunex
