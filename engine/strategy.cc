#include "engine/strategy.h"

#include "engine/error.h"

namespace prunex {

std::string_view strategy_name(Strategy s) {
  switch (s) {
    case Strategy::hsadmm:
      return "hsadmm";
    case Strategy::hsadmm_flat:
      return "hsadmm-flat";
    case Strategy::hsadmm_rail:
      return "hsadmm-rail";
    case Strategy::ddp:
      return "ddp";
    case Strategy::topk:
      return "topk";
    case Strategy::fp16:
      return "fp16";
    case Strategy::pactrain:
      return "pactrain";
    case Strategy::cgx:
      return "cgx";
    case Strategy::powersgd:
      return "powersgd";
  }
  return "?";
}

std::vector<Strategy> all_strategies() {
  return {Strategy::hsadmm,   Strategy::hsadmm_flat, Strategy::hsadmm_rail,
          Strategy::ddp,      Strategy::topk,        Strategy::fp16,
          Strategy::pactrain, Strategy::cgx,         Strategy::powersgd};
}

Strategy parse_strategy(std::string_view name) {
  for (Strategy s : all_strategies())
    if (strategy_name(s) == name) return s;
  throw UsageError(detail::concat(
      "unknown strategy '", name,
      "' (expected hsadmm, hsadmm-flat, hsadmm-rail, ddp, topk, fp16, pactrain, cgx or powersgd)"));
}

}  // namespace prunex
