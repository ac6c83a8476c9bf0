// A node taken from the job while gaptraind does not answer: the launcher asks Slurm
// whether the step's allocation still holds the node, drops a node that is gone instead of
// counting its step's failures, and ignores stale instructions that still name it.
#include <gtest/gtest.h>

#include "launcher/node_loss.hpp"

namespace gaptrain::launch::launch_node_loss_test {
namespace {

using Nodes = std::vector<std::string>;

TEST(LaunchNodeLoss, SlurmsAnswerSaysWhetherTheAllocationStillHoldsTheNode) {
  // squeue -h -t RUNNING -w n2 -o %i: the running jobs there, one id a line.
  EXPECT_EQ(holding_from_answer(true, "41\n57\n", 57), Holding::held);
  EXPECT_EQ(holding_from_answer(true, "41\n", 57), Holding::gone);   // a regular job has it
  EXPECT_EQ(holding_from_answer(true, "", 57), Holding::gone);       // nobody has it
  EXPECT_EQ(holding_from_answer(true, "157\n", 57), Holding::gone);  // not a prefix match
  EXPECT_EQ(holding_from_answer(false, "", 57), Holding::unknown);   // squeue failed
  EXPECT_EQ(holding_query("n2"), (Nodes{"squeue", "-h", "-t", "RUNNING", "-w", "n2", "-o", "%i"}));
}

TEST(LaunchNodeLoss, AStepOnANodeGoneFromTheJobIsNeverAFailure) {
  // The probe's case: srun could not even create the step, its fourth failure in a row.
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::gone, 4, 3), StepEnd::taken_back);
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::held, 4, 3), StepEnd::give_up);
  // srun exits 0 for a step whose node Slurm took: that is no finished training either.
  EXPECT_EQ(judge_step_end(StepExit::success, false, Holding::gone, 0, 3), StepEnd::taken_back);
  EXPECT_EQ(judge_step_end(StepExit::failure, true, Holding::gone, 1, 3), StepEnd::taken_back);
}

// A worker that left by itself (exit 77) lost its node, even while Slurm still lists the
// satellite: preemption with a GraceTime SIGTERMs the step and keeps the node until the grace
// ends. Taken for a finished training, its exit 0 had ended the job.
TEST(LaunchNodeLoss, AWorkerThatLeftByItselfLostItsNodeEvenWhileSlurmStillListsIt) {
  EXPECT_EQ(step_exit_of(kExitLeft << 8), StepExit::left);
  EXPECT_EQ(judge_step_end(StepExit::left, false, Holding::held, 0, 3), StepEnd::taken_back);
  EXPECT_EQ(judge_step_end(StepExit::left, false, Holding::unknown, 0, 3), StepEnd::taken_back);
}

// A plain command (not the helper) that Slurm's SIGTERM ended in a satellite left too; on the
// job's own node, or ended by another signal or status, it is what it was.
TEST(LaunchNodeLoss, AStepSigtermEndedInASatelliteLeft) {
  const int srun_saw_sigterm = (128 + 15) << 8;  // srun exits 143 for a task SIGTERM ended
  const int killed_by_sigterm = 15;              // the wait status of a process SIGTERM killed
  EXPECT_EQ(exit_on(false, srun_saw_sigterm), StepExit::left);
  EXPECT_EQ(exit_on(false, killed_by_sigterm), StepExit::left);
  EXPECT_EQ(exit_on(true, srun_saw_sigterm), StepExit::failure);
  EXPECT_EQ(exit_on(false, 1 << 8), StepExit::failure);
  EXPECT_EQ(exit_on(false, 0), StepExit::success);
}

// The launcher's line about a node taken back says when Slurm's preemption lines before it are
// a clean leave, and only then: a satellite merely gone still shows its step's status.
TEST(LaunchNodeLoss, ALeaveForAPreemptionIsSaidToBeNoFailure) {
  const std::string left = why_taken_back(StepExit::left, kExitLeft << 8, false, 57);
  EXPECT_NE(left.find("satellite 57 was ended by Slurm"), std::string::npos) << left;
  EXPECT_NE(left.find("not a failure"), std::string::npos) << left;
  const std::string gone = why_taken_back(StepExit::failure, 1 << 8, false, 57);
  EXPECT_NE(gone.find("satellite 57 no longer holds it"), std::string::npos) << gone;
  EXPECT_EQ(gone.find("not a failure"), std::string::npos) << gone;
  const std::string own = why_taken_back(StepExit::left, kExitLeft << 8, true, 12);
  EXPECT_NE(own.find("the job no longer holds it"), std::string::npos) << own;
}

TEST(LaunchNodeLoss, OnlyRepeatedFailuresOnANodeStillTheJobsGiveUp) {
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::held, 3, 3), StepEnd::restart);
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::held, 4, 3), StepEnd::give_up);
  // Slurm did not answer: the failure counts, as before the launcher asked.
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::unknown, 1, 3), StepEnd::restart);
  EXPECT_EQ(judge_step_end(StepExit::failure, false, Holding::unknown, 4, 3), StepEnd::give_up);
  EXPECT_EQ(judge_step_end(StepExit::success, false, Holding::held, 0, 3), StepEnd::finished);
  EXPECT_EQ(judge_step_end(StepExit::success, false, Holding::unknown, 0, 3), StepEnd::finished);
}

TEST(LaunchNodeLoss, AWorkerEndingAfterTheTrainingFinishedIsNoFailure) {
  // The trial's case: a node grown into 0.8 s before the training ended; its torchrun agent
  // found the rendezvous closed and exited 1. The job had ended FAILED.
  EXPECT_EQ(judge_step_end(StepExit::failure, true, Holding::held, 1, 3),
            StepEnd::ended_after_finish);
  EXPECT_EQ(judge_step_end(StepExit::start_again, true, Holding::held, 0, 3),
            StepEnd::ended_after_finish);
}

TEST(LaunchNodeLoss, AWorkerAskingToBeStartedAgainIsNoFailure) {
  EXPECT_EQ(judge_step_end(StepExit::start_again, false, Holding::held, 4, 3),
            StepEnd::start_again);
  EXPECT_EQ(judge_step_end(StepExit::start_again, false, Holding::gone, 0, 3), StepEnd::taken_back);
}

TEST(LaunchNodeLoss, AStepThatFailedForGoodEndsTheJobAtOnce) {
  // gaptrain.torchrun's exit after a crash that recurs without a resize: restarting the step
  // would restart the crash (its own restarts are spent).
  EXPECT_EQ(step_exit_of(kExitFailedForGood << 8), StepExit::failed_for_good);
  EXPECT_EQ(judge_step_end(StepExit::failed_for_good, false, Holding::held, 1, 3),
            StepEnd::give_up);
  // Its node taken, or the training over: as any other exit.
  EXPECT_EQ(judge_step_end(StepExit::failed_for_good, false, Holding::gone, 1, 3),
            StepEnd::taken_back);
  EXPECT_EQ(judge_step_end(StepExit::failed_for_good, true, Holding::held, 1, 3),
            StepEnd::ended_after_finish);
}

TEST(LaunchNodeLoss, AStepsExitStatusSaysHowItEnded) {
  EXPECT_EQ(step_exit_of(0), StepExit::success);
  EXPECT_EQ(step_exit_of(kExitStartAgain << 8), StepExit::start_again);
  EXPECT_EQ(step_exit_of(1 << 8), StepExit::failure);
  EXPECT_EQ(step_exit_of(9), StepExit::failure);  // killed by SIGKILL
}

TEST(LaunchNodeLoss, AStepRunsInTheSatelliteHoldingItsNodeElseInTheJob) {
  protocol::LaunchInstruction grown;
  grown.nodes = {"n1", "n2", "n3"};
  grown.allocations = {{"n3", 57}};
  EXPECT_EQ(allocation_of(grown, "n3", 40), 57U);
  EXPECT_EQ(allocation_of(grown, "n2", 40), 40U);
}

TEST(LaunchNodeLoss, StaleInstructionsNamingANodeTakenBackAreNotFollowed) {
  // Satellite 57 on n3 was cancelled; gaptraind, stopped, still answers with it later.
  TakenBack taken{{"n3", 57}};
  const protocol::LaunchInstruction stale{{"n1", "n2", "n3"}, {}, {{"n3", 57}}, {}, {}};
  const protocol::LaunchInstruction followed = without_taken_back(stale, taken, 40);
  EXPECT_EQ(followed.nodes, (Nodes{"n1", "n2"}));
  EXPECT_TRUE(followed.allocations.empty());
  EXPECT_EQ(taken.size(), 1U);  // remembered while instructions name it there
  // The job's own node n2 was shrunk away: gone from the job for good.
  taken["n2"] = 40;
  EXPECT_EQ(without_taken_back(stale, taken, 40).nodes, (Nodes{"n1"}));
}

TEST(LaunchNodeLoss, ANodeTakenBackIsFollowedAgainOnceTheControllerPlacesItAnew) {
  TakenBack taken{{"n3", 57}};
  // gaptraind saw the loss: n3 is no longer named, the entry is forgotten...
  EXPECT_EQ(without_taken_back({{"n1", "n2"}, {}, {}, {}, {}}, taken, 40).nodes,
            (Nodes{"n1", "n2"}));
  EXPECT_TRUE(taken.empty());
  // ... and a later grow onto n3 (satellite 63) is followed at once.
  taken["n3"] = 57;
  const protocol::LaunchInstruction regrown{{"n1", "n2", "n3"}, {}, {{"n3", 63}}, {}, {}};
  const protocol::LaunchInstruction followed = without_taken_back(regrown, taken, 40);
  EXPECT_EQ(followed.nodes, (Nodes{"n1", "n2", "n3"}));
  EXPECT_EQ(followed.allocations.at("n3"), 63U);
  EXPECT_TRUE(taken.empty());
}

TEST(LaunchNodeLoss, ADrainOfANodeTakenBackIsKeptSoThatItIsAcknowledged) {
  TakenBack taken{{"n3", 57}};
  const protocol::LaunchInstruction draining{{"n1", "n3"}, {"n3"}, {{"n3", 57}}, {}, {}};
  const protocol::LaunchInstruction followed = without_taken_back(draining, taken, 40);
  EXPECT_EQ(followed.nodes, (Nodes{"n1"}));
  EXPECT_EQ(followed.drain, (Nodes{"n3"}));
}

}  // namespace
}  // namespace gaptrain::launch::launch_node_loss_test
