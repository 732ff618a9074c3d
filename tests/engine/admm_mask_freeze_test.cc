// Mask freezing at T_freeze or after K unchanged iterations (paper Section 4.5).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "engine/error.h"
#include "engine/mask_freeze.h"

namespace prunex {
namespace {

using Mask = std::vector<uint8_t>;
const Mask kA{1, 0, 1, 1}, kB{1, 1, 0, 1}, kC{0, 0, 1, 1};

TEST(AdmmMaskFreeze, AtTFreeze) {
  MaskFreezer f(3, 0);
  EXPECT_FALSE(f.frozen());
  EXPECT_FALSE(f.observe(1, kA));
  EXPECT_FALSE(f.observe(2, kB));
  EXPECT_TRUE(f.observe(3, kC));  // k = T_freeze: iterations k > 3 use kC
  EXPECT_EQ(f.frozen_at(), 3);
  EXPECT_EQ(f.mask(), kC);
  EXPECT_TRUE(f.observe(4, kA));  // stays frozen, mask unchanged
  EXPECT_EQ(f.mask(), kC);
  EXPECT_EQ(f.frozen_at(), 3);
}

TEST(AdmmMaskFreeze, AfterStableRun) {
  MaskFreezer f(-1, 2);
  // A, B, B (1 unchanged), A (reset), A (1), A (2 -> freeze at k = 6).
  EXPECT_FALSE(f.observe(1, kA));
  EXPECT_FALSE(f.observe(2, kB));
  EXPECT_FALSE(f.observe(3, kB));
  EXPECT_EQ(f.unchanged_run(), 1);
  EXPECT_FALSE(f.observe(4, kA));
  EXPECT_EQ(f.unchanged_run(), 0);
  EXPECT_FALSE(f.observe(5, kA));
  EXPECT_TRUE(f.observe(6, kA));
  EXPECT_EQ(f.frozen_at(), 6);
  EXPECT_EQ(f.mask(), kA);
}

TEST(AdmmMaskFreeze, WhicheverComesFirst) {
  MaskFreezer f(HsadmmConfig{});  // defaults: never
  for (int k = 1; k <= 50; ++k) EXPECT_FALSE(f.observe(k, kA));
  MaskFreezer g(4, 10);
  g.observe(1, kA);
  g.observe(2, kA);
  g.observe(3, kA);
  EXPECT_TRUE(g.observe(4, kA));  // T_freeze before 10 unchanged
  EXPECT_EQ(g.frozen_at(), 4);
}

TEST(AdmmMaskFreeze, BadInput) {
  EXPECT_THROW(MaskFreezer(5, -1), UsageError);
  EXPECT_THROW(MaskFreezer(0, 3), UsageError);
  MaskFreezer f(-1, 3);
  f.observe(1, kA);
  EXPECT_THROW(f.observe(2, Mask{1, 0}), std::logic_error);
}

}  // namespace
}  // namespace prunex
