#include "engine/phases.h"

#include <string>

#include "engine/error.h"

namespace prunex {

bool find_phase(std::string_view name, Phase& out) {
  for (Phase p : kAllPhases)
    if (phase_name(p) == name) {
      out = p;
      return true;
    }
  return false;
}

Phase parse_phase(std::string_view name) {
  Phase p;
  if (find_phase(name, p)) return p;
  std::string valid;
  for (Phase q : kAllPhases) valid += (valid.empty() ? "" : ", ") + std::string(phase_name(q));
  throw UsageError(detail::concat("unknown phase '", name, "' (expected ", valid, ")"));
}

}  // namespace prunex
