#include "rejection_limiter.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon {
namespace {

TEST(RejectionLimiter, APeerRefusedTooOftenIsBlockedForAWhile) {
  RejectionLimiter limiter({.max_rejections = 3, .window_s = 10.0, .block_s = 60.0});
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(limiter.rejected("10.0.0.5", 1.0 + i));
  EXPECT_TRUE(limiter.allowed("10.0.0.5", 4.0));
  EXPECT_TRUE(limiter.rejected("10.0.0.5", 4.5));  // the fourth within 10 s: blocked
  EXPECT_FALSE(limiter.allowed("10.0.0.5", 5.0));
  EXPECT_TRUE(limiter.allowed("10.0.0.6", 5.0));  // another host is not
  EXPECT_FALSE(limiter.allowed("10.0.0.5", 64.0));
  EXPECT_TRUE(limiter.allowed("10.0.0.5", 65.0));  // served again after the block
}

TEST(RejectionLimiter, RefusalsSpreadOverTimeNeverBlock) {
  RejectionLimiter limiter({.max_rejections = 3, .window_s = 10.0, .block_s = 60.0});
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(limiter.rejected("10.0.0.5", 5.0 * i)) << i;  // two per window at most
    EXPECT_TRUE(limiter.allowed("10.0.0.5", 5.0 * i + 1.0)) << i;
  }
}

TEST(RejectionLimiter, PeerAddressDropsThePort) {
  EXPECT_EQ(peer_address("127.0.0.1:40312"), "127.0.0.1");
  EXPECT_EQ(peer_address("[::1]:40312"), "::1");
  EXPECT_EQ(peer_address("unknown"), "unknown");
}

}  // namespace
}  // namespace gaptrain::daemon
