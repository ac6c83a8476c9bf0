#include "failure_reporter.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon::failure_reporter_test {
namespace {

// With the disk full, each failed write of the state file named a fresh temporary file,
// and every one was logged (25 lines in 17 s). One line when it starts failing, one when it works
// again, whatever the failures said.
TEST(FailureReporter, LogsTheFirstFailureAndTheRecoveryOnly) {
  FailureReporter writes;
  EXPECT_EQ(writes.succeeded(), 0);  // working from the start: nothing to say
  EXPECT_TRUE(writes.failed());      // the disk fills up
  for (int i = 0; i < 24; ++i) EXPECT_FALSE(writes.failed()) << "failure " << i + 2;
  EXPECT_EQ(writes.succeeded(), 25);  // written again, after 25 failed tries
  EXPECT_EQ(writes.succeeded(), 0);   // and then nothing more
}

TEST(FailureReporter, EachRunOfFailuresIsLoggedOnce) {
  FailureReporter writes;
  EXPECT_TRUE(writes.failed());
  EXPECT_EQ(writes.succeeded(), 1);
  EXPECT_TRUE(writes.failed());  // failing again after a success is news again
  EXPECT_FALSE(writes.failed());
  EXPECT_EQ(writes.succeeded(), 2);
}

}  // namespace
}  // namespace gaptrain::daemon::failure_reporter_test
