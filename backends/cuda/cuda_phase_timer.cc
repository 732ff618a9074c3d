#include "backends/cuda/cuda_phase_timer.h"

#include <algorithm>

#include "engine/error.h"

namespace prunex {

void CudaPhaseTimer::begin(const std::string& phase) {
  for (const Span& s : spans_)
    PRUNEX_CHECK(!(s.open && s.phase == phase), "phase ", phase, " is already open");
  spans_.push_back(Span{phase, CudaEvent(), CudaEvent()});
  spans_.back().start.record(stream_);
}

void CudaPhaseTimer::end(const std::string& phase) {
  auto it = std::find_if(spans_.rbegin(), spans_.rend(),
                         [&](const Span& s) { return s.open && s.phase == phase; });
  PRUNEX_CHECK(it != spans_.rend(), "phase ", phase, " was not begun");
  it->stop.record(stream_);
  it->open = false;
}

std::vector<std::pair<std::string, double>> CudaPhaseTimer::collect() {
  std::vector<std::pair<std::string, double>> out;
  for (const Span& s : spans_) {
    PRUNEX_CHECK(!s.open, "phase ", s.phase, " was not ended");
    s.stop.synchronize();
    const double sec = s.stop.seconds_since(s.start);
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == s.phase; });
    if (it == out.end())
      out.emplace_back(s.phase, sec);
    else
      it->second += sec;
  }
  spans_.clear();
  return out;
}

}  // namespace prunex
