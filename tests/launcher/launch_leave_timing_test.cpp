// A step asked to leave: a training that leaves by itself gets the time the drain allows before
// SIGTERM (which Slurm reports as a cancelled step), and SIGTERM still comes early enough for it
// to leave on it before gaptraind ends the step at the deadline, but never before the helper had
// the time to leave on the job file.
#include <gtest/gtest.h>

#include "launcher/leave_timing.hpp"

namespace gaptrain::launch::launch_leave_timing_test {
namespace {

using std::chrono::milliseconds;

TEST(LaunchLeaveTiming, AReclaimsShortDeadlineGetsSigtermInTimeToLeaveOnIt) {
  // A reclaim of 3 s learned 0.4 s late: 1.6 s to leave by itself, then SIGTERM, 1 s before
  // the deadline.
  EXPECT_EQ(wait_before_term(2.6, milliseconds(10000)), milliseconds(1600));
  // Less than that left (a drain learned late): the time the helper takes to leave on the job
  // file, not SIGTERM at once (a "CANCELLED" line for a worker that was leaving by itself).
  EXPECT_EQ(wait_before_term(0.6, milliseconds(10000)), kLeaveByItselfAtLeast);
  EXPECT_EQ(wait_before_term(-2.0, milliseconds(10000)), kLeaveByItselfAtLeast);  // already past
  EXPECT_EQ(wait_before_term(0.6, milliseconds(500)), milliseconds(500));  // the launcher's grace
}

TEST(LaunchLeaveTiming, AnAllocatorsShrinkLetsTheTrainingLeaveByItselfAlmostToTheDeadline) {
  // drain_grace_s 10: 9 s to leave without a signal (before, 3 s and then SIGTERM).
  EXPECT_EQ(wait_before_term(10.0, milliseconds(10000)), milliseconds(9000));
  // Never past the launcher's own grace, after which it kills the step.
  EXPECT_EQ(wait_before_term(60.0, milliseconds(5000)), milliseconds(5000));
}

TEST(LaunchLeaveTiming, WithoutADeadlineTheTrainingGetsAFewSeconds) {
  EXPECT_EQ(wait_before_term(std::nullopt, milliseconds(10000)), kLeaveByItself);
  EXPECT_EQ(wait_before_term(std::nullopt, milliseconds(1000)), milliseconds(1000));
}

}  // namespace
}  // namespace gaptrain::launch::launch_leave_timing_test
