#include "simulator/hole_predictor.hpp"

#include <gtest/gtest.h>

namespace gaptrain::sim {
namespace {

TEST(HolePredictor, SaysNothingBeforeItHasSeenEnoughHoles) {
  HolePredictor p;
  for (int i = 0; i < 4; ++i) p.observe(100.0);
  EXPECT_EQ(p.expected_remaining(0.0, 600.0), std::nullopt);
  p.observe(100.0);
  EXPECT_EQ(p.holes_seen(), 5);
  ASSERT_TRUE(p.expected_remaining(0.0, 600.0).has_value());
}

TEST(HolePredictor, ExpectedRemainingIsConditionalOnTheAge) {
  HolePredictor p;
  // Half the holes last 10 s, half 1000 s.
  for (int i = 0; i < 50; ++i) {
    p.observe(10.0);
    p.observe(1000.0);
  }
  // A fresh node: E[min(L, 2000)] = (10 + 1000) / 2.
  EXPECT_NEAR(*p.expected_remaining(0.0, 2000.0), 505.0, 1e-9);
  // The cap binds for the long holes: (10 + 600) / 2.
  EXPECT_NEAR(*p.expected_remaining(0.0, 600.0), 305.0, 1e-9);
  // Idle for 100 s already: only the long holes are left; 900 s to go.
  EXPECT_NEAR(*p.expected_remaining(100.0, 2000.0), 900.0, 1e-9);
  // Older than every hole seen: nothing to say.
  EXPECT_EQ(p.expected_remaining(5000.0, 600.0), std::nullopt);
}

TEST(HolePredictor, IgnoresNonsense) {
  HolePredictor p;
  p.observe(-1.0);
  p.observe(std::numeric_limits<double>::infinity());
  p.observe(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(p.holes_seen(), 0);
}

}  // namespace
}  // namespace gaptrain::sim
