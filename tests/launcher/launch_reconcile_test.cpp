#include <gtest/gtest.h>

#include "launcher/reconcile.hpp"

namespace gaptrain::launch::launch_reconcile_test {
namespace {

using Nodes = std::vector<std::string>;

protocol::LaunchInstruction instruction(Nodes nodes, Nodes drain = {}) {
  return {std::move(nodes), std::move(drain), {}, {}, {}};
}

TEST(LaunchReconcile, StartsOneStepPerNodeBatchHostFirst) {
  const Actions a = reconcile({}, instruction({"n3", "n1", "n2"}), false);
  EXPECT_EQ(a.start, (Nodes{"n3", "n1", "n2"}));
  EXPECT_TRUE(a.stop.empty());
  EXPECT_TRUE(a.drained.empty());
}

TEST(LaunchReconcile, RunningStepsAreLeftAloneAndNewNodesGetOne) {
  const std::vector<StepView> steps = {{"n1", StepPhase::running}, {"n2", StepPhase::running}};
  EXPECT_TRUE(reconcile(steps, instruction({"n1", "n2"}), false).start.empty());
  // A grow: n3 merged into the job.
  const Actions grown = reconcile(steps, instruction({"n1", "n2", "n3"}), false);
  EXPECT_EQ(grown.start, (Nodes{"n3"}));
  EXPECT_TRUE(grown.stop.empty());
}

TEST(LaunchReconcile, DrainStopsTheStepThenAcksOnceItIsGone) {
  const std::vector<StepView> running = {{"n1", StepPhase::running}, {"n2", StepPhase::running}};
  const Actions first = reconcile(running, instruction({"n1", "n2"}, {"n2"}), false);
  EXPECT_EQ(first.stop, (Nodes{"n2"}));
  EXPECT_TRUE(first.drained.empty());  // not before the step is gone
  EXPECT_TRUE(first.start.empty());

  const std::vector<StepView> stopping = {{"n1", StepPhase::running}, {"n2", StepPhase::stopping}};
  const Actions meanwhile = reconcile(stopping, instruction({"n1", "n2"}, {"n2"}), false);
  EXPECT_TRUE(meanwhile.stop.empty());
  EXPECT_TRUE(meanwhile.drained.empty());

  const std::vector<StepView> gone = {{"n1", StepPhase::running}};
  const Actions after = reconcile(gone, instruction({"n1", "n2"}, {"n2"}), false);
  EXPECT_EQ(after.drained, (Nodes{"n2"}));
  EXPECT_TRUE(after.start.empty());  // a drained node gets no new step
}

TEST(LaunchReconcile, AStepAskedToLeaveIsReportedLiveUntilItEnds) {
  // gaptraind takes a drained node once the report no longer lists a live step there: listing
  // only running steps had it cancel a leaving worker's step (SIGKILL) at its next act, long
  // before the drain's deadline.
  const std::vector<StepView> steps = {{"n1", StepPhase::running},
                                       {"n2", StepPhase::stopping},
                                       {"n3", StepPhase::waiting},
                                       {"n4", StepPhase::done}};
  EXPECT_EQ(live_nodes(steps), (Nodes{"n1", "n2"}));
}

TEST(LaunchReconcile, ANoticeIsToldOnceUntilItsTimeMovesByASecond) {
  std::map<std::string, double> told;
  EXPECT_EQ(notices_to_tell(told, {{"n2", 1000.25}}), Nodes{"n2"});
  // The same deadline recomputed at the next poll: not said again (it was, at every poll).
  EXPECT_TRUE(notices_to_tell(told, {{"n2", 1000.2504}}).empty());
  // Drifting by less than a second each time is measured from what was said.
  EXPECT_TRUE(notices_to_tell(told, {{"n2", 1000.9}}).empty());
  EXPECT_EQ(notices_to_tell(told, {{"n2", 1001.3}}), Nodes{"n2"});
  // Withdrawn, then given again: said again.
  EXPECT_TRUE(notices_to_tell(told, {}).empty());
  EXPECT_EQ(notices_to_tell(told, {{"n2", 1001.3}}), Nodes{"n2"});
}

TEST(LaunchReconcile, ANodeSlurmRemovedHasItsStepStopped) {
  const std::vector<StepView> steps = {{"n1", StepPhase::running}, {"n2", StepPhase::running}};
  const Actions a = reconcile(steps, instruction({"n1"}), false);
  EXPECT_EQ(a.stop, (Nodes{"n2"}));
  EXPECT_TRUE(a.drained.empty());  // nobody asked for it: no ack
}

TEST(LaunchReconcile, FailedStepsRestartOnlyWhenDueAndWanted) {
  const Actions early =
      reconcile({{"n2", StepPhase::waiting, false}}, instruction({"n1", "n2"}), false);
  EXPECT_EQ(early.start, (Nodes{"n1"}));
  const Actions due = reconcile({{"n1", StepPhase::running}, {"n2", StepPhase::waiting, true}},
                                instruction({"n1", "n2"}), false);
  EXPECT_EQ(due.start, (Nodes{"n2"}));
  // Its node left the job, or is to be drained: forget it (and ack the drain).
  const Actions gone = reconcile({{"n2", StepPhase::waiting, true}}, instruction({"n1"}), false);
  EXPECT_EQ(gone.forget, (Nodes{"n2"}));
  EXPECT_EQ(gone.start, (Nodes{"n1"}));
  const Actions drained =
      reconcile({{"n2", StepPhase::waiting, false}}, instruction({"n1", "n2"}, {"n2"}), false);
  EXPECT_EQ(drained.forget, (Nodes{"n2"}));
  EXPECT_EQ(drained.drained, (Nodes{"n2"}));
}

TEST(LaunchReconcile, FinishingStartsNothing) {
  const std::vector<StepView> steps = {
      {"n1", StepPhase::done}, {"n2", StepPhase::running}, {"n3", StepPhase::waiting, true}};
  const Actions a = reconcile(steps, instruction({"n1", "n2", "n3", "n4"}), true);
  EXPECT_TRUE(a.start.empty());
  EXPECT_TRUE(a.stop.empty());
  EXPECT_EQ(a.forget, (Nodes{"n3"}));
  // A finished node never restarts, even when not finishing (it is `done`).
  EXPECT_TRUE(reconcile({{"n1", StepPhase::done}}, instruction({"n1"}), false).start.empty());
}

TEST(LaunchReconcile, AStepThatEndedOnANodeGoneFromTheJobIsForgotten) {
  // Slurm took the failed n3 out of the job; srun exited 0 for its step ("Node failure").
  const std::vector<StepView> steps = {
      {"n1", StepPhase::running}, {"n2", StepPhase::done}, {"n3", StepPhase::done}};
  const Actions a = reconcile(steps, instruction({"n1", "n2"}), true);
  EXPECT_EQ(a.forget, (Nodes{"n3"}));
  EXPECT_TRUE(a.start.empty());
  // Back in the job later (a satellite on the repaired node): a fresh step starts there.
  EXPECT_EQ(reconcile({{"n1", StepPhase::running}}, instruction({"n1", "n3"}), false).start,
            (Nodes{"n3"}));
}

TEST(LaunchReconcile, DrainOfANodeWithoutAStepIsAckedAtOnce) {
  const Actions a =
      reconcile({{"n1", StepPhase::running}}, instruction({"n1", "n2"}, {"n2"}), false);
  EXPECT_EQ(a.drained, (Nodes{"n2"}));
  EXPECT_TRUE(a.start.empty());
}

}  // namespace
}  // namespace gaptrain::launch::launch_reconcile_test
