// Mask freezing (paper Section 4.5, Algorithm 1 lines 10-18): after T_freeze iterations, or
// once the synchronised global mask has stayed the same for K consecutive iterations, the
// mask is fixed and projection is replaced by applying it. Once frozen, stays frozen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/hsadmm_config.h"
#include "engine/state_sections.h"

namespace prunex {

class MaskFreezer {
 public:
  // t_freeze < 0: no freezing by iteration (0 is rejected: Algorithm 1 would then never
  // project); stable_iterations == 0: none by stability. Bad values throw UsageError.
  MaskFreezer(int t_freeze, int stable_iterations);
  explicit MaskFreezer(const HsadmmConfig& cfg)
      : MaskFreezer(cfg.t_freeze, cfg.freeze_after_stable) {}

  // Records the global mask (one byte per element, all layers concatenated; any fixed byte
  // layout works, masks are compared as bytes) synchronised in iteration k (1-based, Algorithm
  // 1 line 18). Freezes when k >= t_freeze (so iterations k > t_freeze use it) or when this
  // mask equals the previous one for the stable_iterations-th time in a row. Returns frozen().
  // Calls after freezing change nothing. The size must not change between calls.
  bool observe(int k, const uint8_t* mask, std::size_t bytes);
  bool observe(int k, const std::vector<uint8_t>& mask) {
    return observe(k, mask.data(), mask.size());
  }

  // Whether the next iteration must apply mask() instead of projecting.
  bool frozen() const { return frozen_at_ >= 0; }
  int frozen_at() const { return frozen_at_; }      // iteration whose mask was frozen, else -1
  int unchanged_run() const { return unchanged_; }  // consecutive unchanged observations
  const std::vector<uint8_t>& mask() const { return last_; }  // last (or frozen) mask

  // Checkpoints: the whole state under prefix, and back (a freezer of the same settings).
  void save_state(StateSections& s, const std::string& prefix) const;
  void load_state(const StateSections& s, const std::string& prefix);

 private:
  int t_freeze_;
  int stable_iterations_;
  int frozen_at_ = -1;
  int unchanged_ = 0;
  bool seen_ = false;
  std::vector<uint8_t> last_;
};

// What the freeze state changes in H-SADMM's outer iteration k, decided once for the live
// consensus and the plan builder from whether the mask was frozen after iterations k - 2,
// k - 1 and k (the last known only once iteration k has observed its mask).
struct FreezeSteps {
  bool mask_sync = true;         // leaders unite the node masks (not frozen after k - 1)
  bool build_compaction = true;  // compaction plan built: while unfrozen, and once more in the
                                 // first frozen iteration (the freezing one built the union's)
  bool project_global = false;   // k froze the mask: project the global z for the final mask
};

inline FreezeSteps freeze_steps(bool frozen_after_k2, bool frozen_after_k1, bool frozen_after_k) {
  return {!frozen_after_k1, !frozen_after_k2, !frozen_after_k1 && frozen_after_k};
}

}  // namespace prunex
