#include "request_throttle.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon::request_throttle_test {
namespace {

TEST(RequestThrottle, ABurstThenTheSteadyRate) {
  RequestThrottle throttle(ThrottleLimits{2.0, 10.0});
  int served = 0;
  for (int i = 0; i < 1000; ++i) served += throttle.allow(1001, 100.0) ? 1 : 0;
  EXPECT_EQ(served, 10);  // 1,000 requests in one instant: the burst only
  EXPECT_FALSE(throttle.allow(1001, 100.4));
  EXPECT_NEAR(throttle.wait_s(1001, 100.4), 0.1, 1e-9);
  EXPECT_TRUE(throttle.allow(1001, 100.5));  // one token a half second
  EXPECT_FALSE(throttle.allow(1001, 100.5));
  EXPECT_TRUE(throttle.allow(1001, 200.0));
  EXPECT_DOUBLE_EQ(throttle.wait_s(1001, 200.0), 0.0);
}

TEST(RequestThrottle, OneUsersFloodDoesNotThrottleAnother) {
  RequestThrottle throttle;
  for (int i = 0; i < 100; ++i) throttle.allow(1001, 5.0);
  EXPECT_FALSE(throttle.allow(1001, 5.0));
  EXPECT_TRUE(throttle.allow(1002, 5.0));
}

TEST(RequestThrottle, ManySendersAreForgottenOnceIdle) {
  RequestThrottle throttle(ThrottleLimits{2.0, 10.0});
  for (uid_t uid = 0; uid < 5000; ++uid) EXPECT_TRUE(throttle.allow(uid, 1.0));
  // Much later, every bucket full again: the old senders are dropped, a new one is served.
  EXPECT_TRUE(throttle.allow(99999, 1000.0));
  EXPECT_DOUBLE_EQ(throttle.wait_s(0, 1000.0), 0.0);
}

}  // namespace
}  // namespace gaptrain::daemon::request_throttle_test
