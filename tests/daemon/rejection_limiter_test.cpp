#include "rejection_limiter.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon::rejection_limiter_test {
namespace {

TEST(RejectionLimiter, ASenderRefusedTooOftenIsBlockedForAWhile) {
  RejectionLimiter limiter({.max_rejections = 3, .window_s = 10.0, .block_s = 60.0});
  const std::string sender = sender_of_address("10.0.0.5");
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(limiter.rejected(sender, 1.0 + i));
  EXPECT_FALSE(limiter.blocked(sender, 4.0));
  EXPECT_TRUE(limiter.rejected(sender, 4.5));  // the fourth within 10 s: blocked
  EXPECT_TRUE(limiter.blocked(sender, 5.0));
  EXPECT_FALSE(limiter.blocked(sender_of_address("10.0.0.6"), 5.0));  // another host is not
  EXPECT_TRUE(limiter.blocked(sender, 64.0));
  EXPECT_FALSE(limiter.blocked(sender, 65.0));  // served again after the block
}

// The defect a probe found: one user's garbage blocked the address, and with it root's
// `gaptrain status` and a job's launcher on the same host. Charged to the uid, it blocks no one
// else, neither another uid nor the address the user sent from.
TEST(RejectionLimiter, AUidsRefusalsBlockThatUidAlone) {
  RejectionLimiter limiter({.max_rejections = 3, .window_s = 10.0, .block_s = 60.0});
  for (int i = 0; i < 4; ++i) limiter.rejected(sender_of_uid(1000), 1.0 + 0.1 * i);
  EXPECT_TRUE(limiter.blocked(sender_of_uid(1000), 2.0));
  EXPECT_FALSE(limiter.blocked(sender_of_uid(0), 2.0));
  EXPECT_FALSE(limiter.blocked(sender_of_uid(1001), 2.0));
  EXPECT_FALSE(limiter.blocked(sender_of_address("127.0.0.1"), 2.0));
  EXPECT_NE(sender_of_uid(0), sender_of_address("0"));
}

TEST(RejectionLimiter, RefusalsSpreadOverTimeNeverBlock) {
  RejectionLimiter limiter({.max_rejections = 3, .window_s = 10.0, .block_s = 60.0});
  const std::string sender = sender_of_address("10.0.0.5");
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(limiter.rejected(sender, 5.0 * i)) << i;  // two per window at most
    EXPECT_FALSE(limiter.blocked(sender, 5.0 * i + 1.0)) << i;
  }
}

TEST(RejectionLimiter, PeerAddressDropsThePort) {
  EXPECT_EQ(peer_address("127.0.0.1:40312"), "127.0.0.1");
  EXPECT_EQ(peer_address("[::1]:40312"), "::1");
  EXPECT_EQ(peer_address("unknown"), "unknown");
}

}  // namespace
}  // namespace gaptrain::daemon::rejection_limiter_test
