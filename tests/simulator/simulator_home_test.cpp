// The home mode in the simulator (docs/simulator.md, "The home mode"), on hand-made traces whose
// answers are computed by hand: an admitted job's batch script runs on the home node and trains
// on satellites only, which Slurm preempts for a regular job at once (satellite_qos); a job that
// loses every node is paused, never requeued, trains nothing while paused and grows back when
// nodes return. Beside each, what today's mode does on the same trace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hand_made_trace.hpp"
#include "simulator/model_curves.hpp"
#include "simulator/simulator.hpp"

namespace gaptrain::sim::simulator_home_test {
namespace {

using testing::busy;
using testing::idle;
using testing::make_trace;

// 100 samples/s per node; grows (and starts) cost 20 s, shrinks 10 s.
JobRow linear_job(int min_nodes, int max_nodes) {
  JobRow job;
  job.id = "a";
  job.model = "linear";
  job.min_nodes = min_nodes;
  job.max_nodes = max_nodes;
  job.work_samples = 1e12;
  job.up_cost_s = 20.0;
  job.down_cost_s = 10.0;
  return job;
}

const CurveTable kCurves = {
    {"linear", ModelCurves{ScalingCurve({{1, 100.0}, {2, 200.0}, {4, 400.0}}), {}}}};

// The home mode as docs/admin.md sets it up: a home partition and a preemptable satellite QOS.
SimOptions home_mode() {
  SimOptions options;
  options.config.home_partition = "elastic-home";
  options.config.satellite_qos = "satellite";
  return options;
}

// One node, free until 500, taken by the regular workload until 700, then free to the end.
HoleTrace gone_and_back() {
  return make_trace(1, 1000.0, {{0.0, {idle(0)}}, {500.0, {busy(0)}}, {700.0, {idle(0)}}});
}

TEST(SimulatorHome, AJobThatLosesItsOnlyNodeIsPausedTrainsNothingAndGrowsBack) {
  std::vector<StepRecord> records;
  const SimSummary s = simulate(gone_and_back(), {linear_job(1, 1)}, kCurves, home_mode(),
                                [&](const StepRecord& r) { records.push_back(r); });
  // Admitted at 0 to the home node (no training node), grown onto n0 at 1: a start, stalled to
  // 21; 100/s until 500, when Slurm preempts the satellite for the regular job (no wait). Paused
  // at home, nothing trained, until n0 is free again at 700: grown back at once, a start, stalled
  // to 720; 100/s until 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 100.0 + 280.0 * 100.0);
  EXPECT_DOUBLE_EQ(s.ideal_samples, 499.0 * 100.0 + 300.0 * 100.0);
  EXPECT_EQ(s.rescales, 2);
  EXPECT_EQ(s.rescale_starts, 2);
  EXPECT_EQ(s.reclaims, 1);
  EXPECT_EQ(s.preemptions, 1);
  EXPECT_EQ(s.regular_waits, 0);
  EXPECT_DOUBLE_EQ(s.waited_node_seconds, 0.0);
  EXPECT_EQ(s.requeues, 0);
  EXPECT_EQ(s.pauses, 1);
  // The home node is no hole and holds no training: the books count n0 alone.
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 500.0 + 300.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 499.0 + 300.0);
  for (const StepRecord& r : records) {
    EXPECT_LE(r.allocated_nodes, r.hole_nodes) << "at t=" << r.time_s;
    if (r.time_s > 500.0 && r.time_s < 700.0) {
      EXPECT_EQ(r.jobs_running, 0) << "at t=" << r.time_s;
    }
  }
}

TEST(SimulatorHome, TodaysModeRequeuesTheJobAndTheRegularJobWaitsForGaptraind) {
  const SimSummary s = simulate(gone_and_back(), {linear_job(1, 1)}, kCurves, SimOptions{});
  // Admitted on n0 at 0 (its batch host), stalled to 20; at 500 the regular job waits for it:
  // drained, requeued and handed over at 501. Admitted again at 700, stalled to 720.
  EXPECT_DOUBLE_EQ(s.useful_samples, 480.0 * 100.0 + 280.0 * 100.0);
  EXPECT_EQ(s.reclaims, 1);
  EXPECT_EQ(s.preemptions, 0);
  EXPECT_EQ(s.regular_waits, 1);
  EXPECT_DOUBLE_EQ(s.regular_wait_s_max, 1.0);
  EXPECT_EQ(s.requeues, 1);
  EXPECT_EQ(s.pauses, 0);
}

TEST(SimulatorHome, WithoutAPreemptableQosTheRegularJobWaitsForGaptraindAndTheJobIsPaused) {
  SimOptions options = home_mode();
  options.config.satellite_qos.clear();
  const SimSummary s = simulate(gone_and_back(), {linear_job(1, 1)}, kCurves, options);
  // As in the home mode, but at 500 the regular job waits for gaptraind to let the satellite go
  // (drained at once, released at 501); the training stops at 500 all the same.
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 100.0 + 280.0 * 100.0);
  EXPECT_EQ(s.reclaims, 1);
  EXPECT_EQ(s.preemptions, 0);
  EXPECT_EQ(s.regular_waits, 1);
  EXPECT_DOUBLE_EQ(s.regular_wait_s_max, 1.0);
  EXPECT_EQ(s.requeues, 0);
  EXPECT_EQ(s.pauses, 1);
}

// The trace of SimulatorSemantics.LosingTheBatchHostStopsTheJobAndItRestartsLater: the plan says
// n1 goes at 500, but n0 is taken then. Today's mode loses the batch host on n0 and requeues;
// at home the job keeps training on n1.
TEST(SimulatorHome, TheNodeATodaysBatchHostWouldHoldIsJustASatellite) {
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1, 500.0)}}, {500.0, {busy(0), idle(1)}}});
  SimOptions options = home_mode();
  options.placement = Placement::trace;  // the regular job runs on n0 and nowhere else
  const SimSummary s = simulate(trace, {linear_job(1, 2)}, kCurves, options);
  // Admitted at 0 to the home node, grown onto n0 and n1 at 1 (a start, stalled to 21); 200/s
  // until 500, when n0's satellite is preempted: a shrink to n1, stalled to 510; 100/s to 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 200.0 + 490.0 * 100.0);
  EXPECT_EQ(s.rescales, 2);
  EXPECT_EQ(s.rescale_starts, 1);
  EXPECT_EQ(s.rescale_shrinks, 1);
  EXPECT_EQ(s.reclaims, 1);
  EXPECT_EQ(s.preemptions, 1);
  EXPECT_EQ(s.regular_waits, 0);
  EXPECT_EQ(s.requeues, 0);
  EXPECT_EQ(s.pauses, 0);
}

}  // namespace
}  // namespace gaptrain::sim::simulator_home_test
