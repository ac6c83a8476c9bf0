// The simulator's event semantics on hand-made traces whose answers are computed by hand
// (docs/simulator.md, "Event semantics"): gaptraind's core decides through the simulated Slurm,
// so a job is admitted on its minimum (its start costs a grow's stall), grows a second later
// once it runs (joining the start's restart rather than paying a second one), and a node the
// regular workload takes back is drained (the training lets go at once, a shrink's stall) and
// handed over a second later. Also: stops below the minimum,
// completions, admission, and the policies' different decisions on the same trace.
#include "simulator/simulator.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "hand_made_trace.hpp"
#include "simulator/model_curves.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::sim::simulator_test {
namespace {

using testing::busy;
using testing::idle;
using testing::make_trace;

// A job on the "linear" model: 100 samples/s per node, grows cost 20 s, shrinks 10 s.
JobRow linear_job(std::string id, double submit_s, int min_nodes, int max_nodes,
                  double work_samples = 1e12) {
  JobRow job;
  job.id = std::move(id);
  job.submit_s = submit_s;
  job.model = "linear";
  job.min_nodes = min_nodes;
  job.max_nodes = max_nodes;
  job.work_samples = work_samples;
  job.up_cost_s = 20.0;
  job.down_cost_s = 10.0;
  return job;
}

const CurveTable kCurves = {
    {"linear", ModelCurves{ScalingCurve({{1, 100.0}, {2, 200.0}, {4, 400.0}}), {}}}};

SimOptions with_policy(Policy policy) {
  SimOptions options;
  options.policy = policy;
  return options;
}

// Node 0 is free all along; node 1 is free for 10 s from t=1000, and the plan says so. Growing
// onto it would cost 20 s of 1-node progress (2000 samples) plus a forced 10 s shrink (1000)
// for 10 s of one more node (1000): not worth it.
HoleTrace short_hole_trace() {
  return make_trace(2, 2000.0,
                    {{0.0, {idle(0)}}, {1000.0, {idle(1, 1010.0)}}, {1010.0, {busy(1)}}});
}

TEST(SimulatorSemantics, AHoleShorterThanTheRescaleCostIsNotFilled) {
  const SimSummary s = simulate(short_hole_trace(), {linear_job("a", 0, 1, 2)}, kCurves,
                                with_policy(Policy::gaptrain));
  // Start at 0 (stall 20 s), then 1 node at 100/s until 2000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 1980.0 * 100.0);
  EXPECT_DOUBLE_EQ(s.ideal_samples, 2000.0 * 100.0);
  EXPECT_EQ(s.rescales, 1);
  EXPECT_EQ(s.reclaims, 0);
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 2000.0 + 10.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 2000.0);
}

TEST(SimulatorSemantics, BftrainerFillsTheShortHoleAndPaysForIt) {
  const SimSummary s = simulate(short_hole_trace(), {linear_job("a", 0, 1, 2)}, kCurves,
                                with_policy(Policy::bftrainer));
  // 20..1000 on 1 node; grow at 1000 stalls to 1020. Slurm's plan has a regular job on node 1
  // at 1010 and the satellite's lease (a minute, Slurm's least) would outlast that: gaptraind
  // gives the node back at the next poll (1001: drain, the training lets go; its 10 s shrink
  // stall joins the grow's restart, which still ends at 1020; 1002: released). Then 1 node
  // until 2000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 980.0 * 100.0 + 980.0 * 100.0);
  EXPECT_DOUBLE_EQ(s.ideal_samples, 1000.0 * 100.0 + 1.0 * 200.0 + 999.0 * 100.0);
  EXPECT_EQ(s.rescales, 3);  // start, grow, shrink
  EXPECT_EQ(s.reclaims, 0);  // given back before the regular job came
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 2000.0 + 2.0);
  EXPECT_EQ(s.regular_waits, 0);
}

TEST(SimulatorSemantics, AReclaimChargesTheShrinkCost) {
  // The plan says node 1 goes at 500, so the job's batch host goes on node 0.
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1, 500.0)}}, {500.0, {busy(1)}}});
  const SimSummary s =
      simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, with_policy(Policy::gaptrain));
  // Admitted on node 0 at 0 (stall to 20), grown onto node 1 at 1 (the grow joins the start's
  // restart: stall to 21), 200/s until the regular workload takes node 1 at 500: drained at
  // once (10 s shrink stall), released at 501, where the waiting regular job starts; then 100/s
  // until 1000.
  EXPECT_EQ(s.reclaims, 1);
  EXPECT_EQ(s.rescales, 3);  // start, grow, shrink
  EXPECT_EQ(s.rescale_starts, 1);
  EXPECT_EQ(s.rescale_grows, 1);
  EXPECT_EQ(s.rescale_shrinks, 1);
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 200.0 + 490.0 * 100.0);
  EXPECT_DOUBLE_EQ(s.ideal_samples, 1.0 * 100.0 + 499.0 * 200.0 + 500.0 * 100.0);
  EXPECT_EQ(s.regular_waits, 1);
  EXPECT_DOUBLE_EQ(s.regular_wait_s_max, 1.0);
}

TEST(SimulatorSemantics, LosingTheBatchHostStopsTheJobAndItRestartsLater) {
  // The plan says node 1 goes at 500 and node 0 lives on, so the batch host goes on node 0 (its
  // longest hole). The plan is wrong: node 0 is taken at 500 and node 1 stays free, the plan
  // now giving it no end.
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1, 500.0)}}, {500.0, {busy(0), idle(1)}}});
  SimOptions options = with_policy(Policy::gaptrain);
  options.placement = Placement::trace;  // the regular job runs on node 0 and nowhere else
  const SimSummary s = simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, options);
  // 21..500 on 2 nodes (admitted at 0, grown at 1 within the start's restart); at 500 the batch
  // host is wanted: the job is drained whole and requeued at 501, admitted again on node 1 at
  // 502 (stall 20 s, the start cost), then 100/s from 522 to 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 200.0 + 478.0 * 100.0);
  EXPECT_EQ(s.rescales, 3);        // start, grow, restart; the stop itself costs no stall
  EXPECT_EQ(s.rescale_starts, 2);  // the restart is a start from no nodes
  EXPECT_EQ(s.rescale_grows, 1);
  EXPECT_EQ(s.rescale_shrinks, 0);
  EXPECT_EQ(s.reclaims, 1);
}

// The timeline's reclaim markers: the step where the regular workload took the node back says
// so, once; no other record does (the window's last record included).
TEST(SimulatorSemantics, TheStepOfAReclaimRecordsItsNodes) {
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1, 500.0)}}, {500.0, {busy(1)}}});
  std::vector<StepRecord> reclaiming;
  int records = 0;
  const SimSummary s = simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves,
                                with_policy(Policy::gaptrain), [&](const StepRecord& r) {
                                  ++records;
                                  if (r.reclaimed_nodes != 0) reclaiming.push_back(r);
                                });
  ASSERT_EQ(s.reclaims, 1);
  ASSERT_EQ(reclaiming.size(), 1u);
  EXPECT_DOUBLE_EQ(reclaiming[0].time_s, 500.0);
  EXPECT_EQ(reclaiming[0].reclaimed_nodes, 1);
  EXPECT_GT(records, 2);
}

// Where Slurm places regular jobs (the default), the same trace costs the job a satellite, not
// its batch host: the regular job the trace starts on node 0 waits for any node, and gaptraind
// gives the satellite on node 1 (a shrink), where it starts.
TEST(SimulatorSemantics, WhereSlurmPlacesTheRegularJobTheJobGivesASatelliteInstead) {
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1, 500.0)}}, {500.0, {busy(0), idle(1)}}});
  const SimSummary s =
      simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, with_policy(Policy::gaptrain));
  // 21..500 on 2 nodes; at 500 the satellite is drained (10 s shrink stall) and given back at
  // 501, where the regular job starts after a second's wait; 100/s from 510 to 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 479.0 * 200.0 + 490.0 * 100.0);
  EXPECT_EQ(s.rescales, 3);  // start, grow, shrink: no restart
  EXPECT_EQ(s.regular_waits, 1);
  EXPECT_DOUBLE_EQ(s.regular_wait_s_max, 1.0);
}

// Where Slurm places regular jobs, one the trace starts on a node an elastic job holds runs on
// an idle hole node instead, and nobody waits: the job runs on at most one node, node 1 (the one
// Slurm offers last), and node 0 is idle.
TEST(SimulatorSemantics, WhereSlurmPlacesTheRegularJobItRunsOnAnIdleNode) {
  const HoleTrace trace = make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}, {500.0, {busy(1)}}});
  const SimSummary placed =
      simulate(trace, {linear_job("a", 0, 1, 1)}, kCurves, with_policy(Policy::gaptrain));
  EXPECT_DOUBLE_EQ(placed.useful_samples, 980.0 * 100.0);
  EXPECT_EQ(placed.reclaims, 0);
  EXPECT_EQ(placed.regular_waits, 0);
  EXPECT_DOUBLE_EQ(placed.hole_node_seconds, 2.0 * 500.0 + 500.0);
  SimOptions options = with_policy(Policy::gaptrain);
  options.placement = Placement::trace;  // the job's node 1 is taken back: requeued, restarts
  const SimSummary pinned = simulate(trace, {linear_job("a", 0, 1, 1)}, kCurves, options);
  EXPECT_EQ(pinned.reclaims, 1);
  EXPECT_LT(pinned.useful_samples, placed.useful_samples);
}

TEST(SimulatorSemantics, AJobBelowItsMinimumStopsAndRestartsWhenNodesReturn) {
  const HoleTrace trace =
      make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}, {500.0, {busy(1)}}, {700.0, {idle(1)}}});
  const SimSummary s =
      simulate(trace, {linear_job("a", 0, 2, 2)}, kCurves, with_policy(Policy::bftrainer));
  // Admitted on both (its minimum) at 0, 20..500 at 200/s; at 500 one node goes, 1 < min 2:
  // drained and requeued at 501, node 0 left idle; at 700 both are free again: admitted
  // (stall 20 s), 200/s from 720 to 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 480.0 * 200.0 + 280.0 * 200.0);
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 2.0 * 500.0 + 200.0 + 2.0 * 300.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 2.0 * 500.0 + 1.0 + 2.0 * 300.0);
  EXPECT_EQ(s.rescales, 2);
  EXPECT_EQ(s.reclaims, 1);
}

TEST(SimulatorSemantics, CompletionTimesAndTheMakespanOfTheMix) {
  const HoleTrace trace = make_trace(1, 3000.0, {{0.0, {idle(0)}}});
  SimOptions options = with_policy(Policy::bftrainer);
  options.max_running = 1;
  // a: stall to 20, 50000 samples at 100/s: done at 520; b, submitted at 100, admitted at 520,
  // stalls to 540, done at 1040: completion times 520 and 940 s.
  const SimSummary both =
      simulate(trace, {linear_job("a", 0, 1, 1, 50000.0), linear_job("b", 100, 1, 1, 50000.0)},
               kCurves, options);
  EXPECT_EQ(both.jobs_completed, 2);
  EXPECT_DOUBLE_EQ(both.mean_jct_s, (520.0 + 940.0) / 2.0);
  EXPECT_DOUBLE_EQ(both.p90_jct_s, 940.0);
  EXPECT_DOUBLE_EQ(both.makespan_s, 1040.0);  // from a's submission to b's completion
  // A third job that cannot finish in the window: no makespan, the others' times unchanged.
  const SimSummary three =
      simulate(trace,
               {linear_job("a", 0, 1, 1, 50000.0), linear_job("b", 100, 1, 1, 50000.0),
                linear_job("c", 200, 1, 1)},
               kCurves, options);
  EXPECT_EQ(three.jobs_completed, 2);
  EXPECT_DOUBLE_EQ(three.p90_jct_s, 940.0);
  EXPECT_DOUBLE_EQ(three.makespan_s, 0.0);
}

TEST(SimulatorSemantics, AJobCompletesWhenItsWorkIsDoneAndTheNextIsAdmitted) {
  const HoleTrace trace = make_trace(1, 1000.0, {{0.0, {idle(0)}}});
  SimOptions options = with_policy(Policy::bftrainer);
  options.max_running = 1;
  std::vector<StepRecord> steps;
  const SimSummary s =
      simulate(trace, {linear_job("a", 0, 1, 1, 50000.0), linear_job("b", 0, 1, 1)}, kCurves,
               options, [&](const StepRecord& r) { steps.push_back(r); });
  // a: stall to 20, 50000 samples at 100/s: done at 520. b is admitted then, stalls to 540.
  EXPECT_EQ(s.jobs_submitted, 2);
  EXPECT_EQ(s.jobs_completed, 1);
  EXPECT_DOUBLE_EQ(s.useful_samples, 50000.0 + 460.0 * 100.0);
  // t=0 (trace, submits, a admitted), t=1 (the poll after it), t=520 (a done, b admitted),
  // t=521, t=1000 (the end).
  ASSERT_EQ(steps.size(), 5U);
  EXPECT_DOUBLE_EQ(steps[2].time_s, 520.0);
  ASSERT_EQ(steps[2].allocation.size(), 1U);
  EXPECT_EQ(steps[2].allocation[0].job, 1);
}

TEST(SimulatorSemantics, AdmissionIsFcfsAndBounded) {
  const HoleTrace trace = make_trace(4, 100.0, {{0.0, {idle(0), idle(1), idle(2), idle(3)}}});
  SimOptions options = with_policy(Policy::equal_share);
  options.max_running = 2;
  std::vector<StepRecord> steps;
  simulate(trace, {linear_job("a", 0, 1, 4), linear_job("b", 0, 1, 4), linear_job("c", 0, 1, 4)},
           kCurves, options, [&](const StepRecord& r) { steps.push_back(r); });
  // t=0: a and b admitted on one node each; t=1: each grown to its equal share of 2; t=2: the
  // poll after the grows, nothing to do; then the window's end.
  ASSERT_EQ(steps.size(), 4U);
  EXPECT_DOUBLE_EQ(steps[3].time_s, 100.0);
  EXPECT_EQ(steps[3].allocated_nodes, 4);
  // Only a and b are in Slurm (at most 2 running); equal share gives each 2 nodes.
  ASSERT_EQ(steps[1].allocation.size(), 2U);
  EXPECT_EQ(steps[1].allocation[0].job, 0);
  EXPECT_EQ(steps[1].allocation[0].nodes, 2);
  EXPECT_EQ(steps[1].allocation[1].job, 1);
  EXPECT_EQ(steps[1].allocation[1].nodes, 2);
}

TEST(SimulatorSemantics, TheWindowShiftsSubmitsAndCountsOnlyItsOwnTime) {
  const HoleTrace trace = make_trace(1, 1000.0, {{0.0, {idle(0)}}});
  SimOptions options = with_policy(Policy::bftrainer);
  options.start_s = 400.0;
  options.duration_s = 300.0;
  // Submitted 100 s into the window (t=500): stall to 520, progress until 700.
  const SimSummary s = simulate(trace, {linear_job("a", 100, 1, 1)}, kCurves, options);
  EXPECT_DOUBLE_EQ(s.simulated_s, 300.0);
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 300.0);
  EXPECT_DOUBLE_EQ(s.useful_samples, 180.0 * 100.0);
}

TEST(SimulatorSemantics, NodesBeyondTheLimitOfferNoHoles) {
  const HoleTrace trace = make_trace(2, 100.0, {{0.0, {idle(0), idle(1)}}});
  SimOptions options = with_policy(Policy::bftrainer);
  options.node_limit = 1;
  const SimSummary s = simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, options);
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 100.0);
  EXPECT_DOUBLE_EQ(s.useful_samples, 80.0 * 100.0);
}

// The daemon's settings reach the core: with one idle node kept in reserve for regular jobs
// (gaptraind.json's idle_reserve_nodes), the job never grows onto the second.
TEST(SimulatorSemantics, TheDaemonsSettingsAreTheCoresIdleReserveIncluded) {
  const HoleTrace trace = make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}});
  SimOptions options = with_policy(Policy::gaptrain);
  options.config.idle_reserve_nodes = 1;
  const SimSummary s = simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, options);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 1000.0);
  EXPECT_DOUBLE_EQ(s.useful_samples, 980.0 * 100.0);
  options.config.idle_reserve_nodes = 0;  // grown at 1, within the start's restart: stall to 21
  EXPECT_DOUBLE_EQ(simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, options).useful_samples,
                   979.0 * 200.0);
}

// Utilization counts every hole node; usable utilization only what the jobs in Slurm could
// hold (their maximum node counts): one job of at most one node on a two-node hole.
TEST(SimulatorSemantics, UsableUtilizationCountsWhatTheJobsCouldHold) {
  const HoleTrace trace = make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}});
  const SimSummary s =
      simulate(trace, {linear_job("a", 0, 1, 1)}, kCurves, with_policy(Policy::gaptrain));
  EXPECT_DOUBLE_EQ(s.hole_node_seconds, 2000.0);
  EXPECT_DOUBLE_EQ(s.usable_node_seconds, 1000.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 1000.0);
  EXPECT_DOUBLE_EQ(s.utilization, 0.5);
  EXPECT_DOUBLE_EQ(s.usable_utilization, 1.0);
}

TEST(SimulatorSemantics, LearnedCurvesStillProgressAtTheTrueRate) {
  const HoleTrace trace = make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}});
  SimOptions options = with_policy(Policy::bftrainer);
  options.learn = true;
  const SimSummary s = simulate(trace, {linear_job("a", 0, 1, 2)}, kCurves, options);
  // Whatever the prior says, one job alone takes every free node it can use: admitted at 0
  // (stall to 20), grown at 1 (joining the start's restart: stall to 21), 200/s until 1000.
  EXPECT_DOUBLE_EQ(s.useful_samples, 979.0 * 200.0);
}

// A job that runs on 2 or 4 nodes only, 3 nodes free. Told its counts, gaptraind gives it 2;
// not told, 3, and it trains on 2 all the same (the third idles): the same samples, a node
// held for nothing.
TEST(SimulatorSemantics, AJobTrainsOnTheLargestAllowedCountItHolds) {
  const HoleTrace trace = make_trace(3, 1000.0, {{0.0, {idle(0), idle(1), idle(2)}}});
  JobRow job = linear_job("a", 0, 2, 4);
  job.allowed_sizes = {2, 4};
  SimOptions told = with_policy(Policy::gaptrain);
  const SimSummary with_sizes = simulate(trace, {job}, kCurves, told);
  told.tell_allowed_sizes = false;
  const SimSummary without = simulate(trace, {job}, kCurves, told);
  // Admitted on 2 at 0 (stall to 20), 200/s until 1000.
  EXPECT_DOUBLE_EQ(with_sizes.useful_samples, 980.0 * 200.0);
  EXPECT_DOUBLE_EQ(without.useful_samples, with_sizes.useful_samples);
  EXPECT_DOUBLE_EQ(with_sizes.allocated_node_seconds, 2000.0);
  EXPECT_GT(without.allocated_node_seconds, 2900.0);  // grown to 3 a second after its start
}

// Node types: n0, n1 a100 and n2, n3 v100, free all along; a job of 1 to 4 nodes
// trains at 100 samples/s per a100 node, 40 per v100 node. Told the types, gaptraind gives it
// both a100 nodes (200/s) rather than all four of two types, where its steps would wait for the
// v100 nodes (the v100 curve at 4: 160/s). Not told, it is given all four.
HoleTrace typed_trace() {
  HoleTrace trace = make_trace(4, 1000.0, {{0.0, {idle(0), idle(1), idle(2), idle(3)}}});
  trace.node_types = {"a100", "a100", "v100", "v100"};
  return trace;
}

CurveTable typed_curves() {
  std::map<std::string, ScalingCurve> by_type = {
      {"a100", ScalingCurve({{1, 100.0}, {2, 200.0}, {4, 400.0}})},
      {"v100", ScalingCurve({{1, 40.0}, {2, 80.0}, {4, 160.0}})}};
  CurveTable curves;
  curves.emplace("linear", ModelCurves{slowest_curve(by_type), by_type});
  return curves;
}

TEST(SimulatorNodeTypes, ToldTheTypesTheJobRunsOnTheFastTypeOnly) {
  std::vector<StepRecord> steps;
  const SimSummary s =
      simulate(typed_trace(), {linear_job("a", 0, 1, 4)}, typed_curves(),
               with_policy(Policy::gaptrain), [&](const StepRecord& r) { steps.push_back(r); });
  // Admitted at 0 on an a100 node (stall to 20), grown to both a100 nodes at 1 (stall to 21),
  // then 200/s until 1000: on one type, the fast one, all along (on v100 or across types it
  // would train at 80/s at most on 2 nodes).
  EXPECT_DOUBLE_EQ(s.useful_samples, 979.0 * 200.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 1.0 + 999.0 * 2.0);
  for (const StepRecord& r : steps) EXPECT_LE(r.allocated_nodes, 2) << "at " << r.time_s;
}

TEST(SimulatorNodeTypes, NotToldTheJobSpreadsOverBothTypesAndWaitsForTheSlowest) {
  SimOptions options = with_policy(Policy::gaptrain);
  options.tell_node_types = false;
  const SimSummary s = simulate(typed_trace(), {linear_job("a", 0, 1, 4)}, typed_curves(), options);
  // Told one curve (its slowest type's, 40/s per node), it takes all four nodes: admitted at 0
  // (stall to 20), grown at 1 (to 21), then the v100 curve at 4 nodes: 160/s.
  EXPECT_DOUBLE_EQ(s.useful_samples, 979.0 * 160.0);
  EXPECT_DOUBLE_EQ(s.allocated_node_seconds, 1.0 + 999.0 * 4.0);
}

TEST(SimulatorNodeTypes, LearningCurvesPerTypeTheJobStillKeepsToOneType) {
  SimOptions options = with_policy(Policy::gaptrain);
  options.learn = true;
  const SimSummary s = simulate(typed_trace(), {linear_job("a", 0, 1, 4)}, typed_curves(), options);
  // With no curves told (the same prior on both types), it runs on one type, 2 nodes: 200/s on
  // a100 or 80/s on v100, never 4 nodes across both.
  EXPECT_LE(s.allocated_node_seconds, 1.0 + 999.0 * 2.0 + 1e-6);
  EXPECT_GT(s.useful_samples, 0.0);
}

TEST(SimulatorNodeTypes, AJobWhoseTypesNoNodeHasIsAnError) {
  HoleTrace trace = typed_trace();
  trace.node_types = {"h100", "h100", "h100", "h100"};
  JobRow job = linear_job("a", 0, 1, 4);
  job.line = 2;
  const InputError e = testing::input_error_from(
      [&] { simulate(trace, {job}, typed_curves(), with_policy(Policy::gaptrain)); });
  EXPECT_EQ(e.field(), "jobs:2");
}

TEST(SimulatorInput, AModelWithoutACurveIsAnError) {
  const HoleTrace trace = make_trace(1, 100.0, {{0.0, {idle(0)}}});
  JobRow job = linear_job("a", 0, 1, 1);
  job.model = "bert";
  job.line = 3;
  const InputError e = testing::input_error_from(
      [&] { simulate(trace, {job}, kCurves, with_policy(Policy::gaptrain)); });
  EXPECT_EQ(e.field(), "jobs:3");
}

TEST(SimulatorInput, AStartBeyondTheTraceIsAnError) {
  const HoleTrace trace = make_trace(1, 100.0, {{0.0, {idle(0)}}});
  SimOptions options;
  options.start_s = 100.0;
  const InputError e = testing::input_error_from([&] { simulate(trace, {}, kCurves, options); });
  EXPECT_EQ(e.field(), "--start");
}

TEST(SimulatorPolicy, NamesRoundTrip) {
  for (const Policy p : {Policy::gaptrain, Policy::bftrainer, Policy::equal_share})
    EXPECT_EQ(policy_from_string(to_string(p)), p);
  EXPECT_EQ(policy_from_string("equal_share"), std::nullopt);
  EXPECT_EQ(policy_from_string("oracle"), std::nullopt);  // --oracle computes a bound instead
}

TEST(RepeatJobs, ResubmitsTheMixWithFreshIdsUntilTheEnd) {
  const std::vector<JobRow> mix = {linear_job("a", 0, 1, 1), linear_job("b", 50, 1, 1)};
  const std::vector<JobRow> jobs = repeat_jobs(mix, 100.0, 260.0);
  std::vector<std::string> ids;
  std::vector<double> submits;
  for (const JobRow& j : jobs) {
    ids.push_back(j.id);
    submits.push_back(j.submit_s);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "a#2", "b#2", "a#3", "b#3"}));
  EXPECT_EQ(submits, (std::vector<double>{0, 50, 100, 150, 200, 250}));
  EXPECT_EQ(repeat_jobs(mix, 0.0, 1000.0).size(), 2U);
}

}  // namespace
}  // namespace gaptrain::sim::simulator_test
