#include "engine/mask_freeze.h"

#include <algorithm>

#include "engine/error.h"

namespace prunex {

MaskFreezer::MaskFreezer(int t_freeze, int stable_iterations)
    : t_freeze_(t_freeze), stable_iterations_(stable_iterations) {
  PRUNEX_USAGE(stable_iterations >= 0, "mask freezing: stable iteration count must be >= 0 (got ",
               stable_iterations, ")");
  PRUNEX_USAGE(t_freeze != 0,
               "mask freezing: T_freeze must be >= 1, or negative for never (got 0)");
}

bool MaskFreezer::observe(int k, const uint8_t* mask, std::size_t bytes) {
  if (frozen()) return true;
  if (seen_) {
    PRUNEX_CHECK_EQ(bytes, last_.size(), "mask size changed between iterations");
    if (std::equal(last_.begin(), last_.end(), mask))
      ++unchanged_;
    else
      unchanged_ = 0;
  }
  last_.assign(mask, mask + bytes);
  seen_ = true;
  const bool by_iteration = t_freeze_ >= 0 && k >= t_freeze_;
  const bool by_stability = stable_iterations_ > 0 && unchanged_ >= stable_iterations_;
  if (by_iteration || by_stability) frozen_at_ = k;
  return frozen();
}

void MaskFreezer::save_state(StateSections& s, const std::string& prefix) const {
  put_state<int32_t>(s, prefix + "counters", {frozen_at_, unchanged_, seen_ ? 1 : 0});
  put_state(s, prefix + "last_mask", last_);
}

void MaskFreezer::load_state(const StateSections& s, const std::string& prefix) {
  const auto c = get_state<int32_t>(s, prefix + "counters", 3);
  frozen_at_ = c[0];
  unchanged_ = c[1];
  seen_ = c[2] != 0;
  last_ = get_state<uint8_t>(s, prefix + "last_mask");
}

}  // namespace prunex
