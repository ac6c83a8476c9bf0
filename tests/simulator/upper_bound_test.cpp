// The oracle bound (simulator/upper_bound.hpp): hand-made traces whose bound is computed by
// hand, and a property test on random small traces: no policy, with or without --learn, trains
// more useful samples than the bound.
#include "simulator/upper_bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "hand_made_trace.hpp"
#include "simulator/curve_hull.hpp"
#include "simulator/model_curves.hpp"
#include "simulator/simulator.hpp"

namespace gaptrain::sim::upper_bound_test {
namespace {

using testing::busy;
using testing::idle;
using testing::make_trace;

JobRow job(std::string id, std::string model, double submit_s, int max_nodes, double work) {
  JobRow spec;
  spec.id = std::move(id);
  spec.model = std::move(model);
  spec.submit_s = submit_s;
  spec.min_nodes = 1;
  spec.max_nodes = max_nodes;
  spec.work_samples = work;
  spec.up_cost_s = 5.0;
  spec.down_cost_s = 3.0;
  return spec;
}

// slow: 100 samples/s per node; fast: 200.
const CurveTable kCurves = {{"slow", ModelCurves{ScalingCurve({{1, 100.0}, {4, 400.0}}), {}}},
                            {"fast", ModelCurves{ScalingCurve({{1, 200.0}, {4, 800.0}}), {}}}};

SimOptions slots(int max_running) {
  SimOptions options;
  options.max_running = max_running;
  return options;
}

// Nodes 0 and 1 of 2 are free for the whole 1000 s.
HoleTrace two_free_nodes() {
  return make_trace(2, 1000.0, {{0.0, {idle(0), idle(1)}}});
}

TEST(CurveHull, IsTheLeastConcaveMajorantFlatFromTheHighestPoint) {
  // Superlinear from 1 to 2 nodes, then past its peak at 3: the hull skips (1, 100) and (4, 250).
  const std::vector<HullPiece> hull =
      concave_hull(ScalingCurve({{1, 100.0}, {2, 300.0}, {3, 360.0}, {4, 250.0}}));
  ASSERT_EQ(hull.size(), 3U);
  EXPECT_DOUBLE_EQ(hull[0].intercept, 0.0);
  EXPECT_DOUBLE_EQ(hull[0].slope, 150.0);  // (0,0) to (2,300)
  EXPECT_DOUBLE_EQ(hull[1].slope, 60.0);   // (2,300) to (3,360)
  EXPECT_DOUBLE_EQ(hull[1].intercept, 180.0);
  EXPECT_DOUBLE_EQ(hull[2].slope, 0.0);
  EXPECT_DOUBLE_EQ(hull[2].intercept, 360.0);
}

TEST(UpperBound, WithNodeTypesAJobMayTrainAtItsFastestTypeOnEveryNode) {
  // Node 0 a100, node 1 v100; the job does 200/s per a100 node, 100 per v100 node. Whatever a
  // policy does (told the types or not), the bound lets it train at 200/s per node on both.
  HoleTrace trace = two_free_nodes();
  trace.node_types = {"a100", "v100"};
  const std::map<std::string, ScalingCurve> by_type = {
      {"a100", ScalingCurve({{1, 200.0}, {4, 800.0}})},
      {"v100", ScalingCurve({{1, 100.0}, {4, 400.0}})}};
  CurveTable curves;
  curves.emplace("typed", ModelCurves{slowest_curve(by_type), by_type});
  const std::vector<JobRow> jobs = {job("a", "typed", 0, 4, 1e12)};
  const UpperBound b = useful_samples_bound(trace, jobs, curves, slots(10));
  EXPECT_NEAR(b.samples, 400'000.0, 1e-3);
  for (const bool told : {true, false}) {
    SimOptions options = slots(10);
    options.tell_node_types = told;
    EXPECT_LE(simulate(trace, jobs, curves, options).useful_samples, b.samples) << told;
  }
}

TEST(UpperBound, OneJobOneHoleIsTheHolesNodeTimeAtTheCurvesBestRate) {
  // 2 nodes x 1000 s at 100 samples per node-second.
  const UpperBound b =
      useful_samples_bound(two_free_nodes(), {job("a", "slow", 0, 4, 1e12)}, kCurves, slots(10));
  EXPECT_NEAR(b.samples, 200'000.0, 1e-3);
  EXPECT_EQ(b.jobs_modelled, 1);
}

TEST(UpperBound, AJobTrainsOnAtMostItsMaxNodes) {
  const UpperBound b =
      useful_samples_bound(two_free_nodes(), {job("a", "slow", 0, 1, 1e12)}, kCurves, slots(10));
  EXPECT_NEAR(b.samples, 100'000.0, 1e-3);
}

TEST(UpperBound, AJobTrainsAtMostItsWork) {
  const UpperBound one =
      useful_samples_bound(two_free_nodes(), {job("a", "slow", 0, 4, 30'000)}, kCurves, slots(10));
  EXPECT_NEAR(one.samples, 30'000.0, 1e-3);
  const UpperBound two = useful_samples_bound(
      two_free_nodes(), {job("a", "slow", 0, 4, 30'000), job("b", "slow", 0, 4, 30'000)}, kCurves,
      slots(10));
  EXPECT_NEAR(two.samples, 60'000.0, 1e-3);
}

TEST(UpperBound, AJobStartsOnlyOnceTheJobsBeforeItLeaveASlot) {
  // The slow job, submitted first, cannot finish in the window: with one slot the fast job never
  // enters Slurm, and only the slow one trains (2 nodes x 1000 s x 100).
  const std::vector<JobRow> jobs = {job("slow", "slow", 0, 4, 1e12),
                                    job("fast", "fast", 0, 4, 1e12)};
  const UpperBound one_slot = useful_samples_bound(two_free_nodes(), jobs, kCurves, slots(1));
  EXPECT_NEAR(one_slot.samples, 200'000.0, 1e-3);
  EXPECT_EQ(one_slot.jobs_modelled, 1);
  // With two slots both are in Slurm at once, and the fast one may have every node.
  const UpperBound two_slots = useful_samples_bound(two_free_nodes(), jobs, kCurves, slots(2));
  EXPECT_NEAR(two_slots.samples, 400'000.0, 1e-3);
}

TEST(UpperBound, NodeTimeHeldAfterTheTraceTookItBackCounts) {
  // Node 0 of 2 is free for 1000 s; the run held 200 node-seconds of taken-back nodes.
  const HoleTrace trace = make_trace(2, 1000.0, {{0.0, {idle(0)}}});
  BoundOptions options;
  options.waited_node_seconds = 200.0;
  const UpperBound b =
      useful_samples_bound(trace, {job("a", "slow", 0, 2, 1e12)}, kCurves, slots(10), options);
  EXPECT_NEAR(b.samples, 120'000.0, 1e-3);
}

TEST(UpperBound, ThePerModelFallbackIgnoresSubmissionOrder) {
  // The slow job can finish (50,000 samples), so the fast one may start: pooled per model,
  // nothing says it must wait (the pooled order rows only bound the mix up to one slot's work),
  // and it has every node-second at 200 samples each.
  const std::vector<JobRow> jobs = {job("slow", "slow", 0, 4, 50'000),
                                    job("fast", "fast", 0, 4, 1e12)};
  BoundOptions options;
  options.max_job_buckets = 0;  // too big for the per-job relaxation
  const UpperBound b = useful_samples_bound(two_free_nodes(), jobs, kCurves, slots(1), options);
  EXPECT_EQ(b.method, "per-model LP");
  // The interior point method's duals certify it to about 1e-9 (relative).
  EXPECT_NEAR(b.samples, 400'000.0, 400'000.0 * 1e-6);
}

// ---- Property: on random small traces the bound holds for every policy ----------------------

const CurveTable kRandomCurves = {
    {"linear", ModelCurves{ScalingCurve({{1, 100.0}, {4, 400.0}}), {}}},
    {"concave", ModelCurves{ScalingCurve({{1, 100.0}, {2, 170.0}, {4, 240.0}}), {}}},
    {"bumpy", ModelCurves{ScalingCurve({{1, 50.0}, {2, 180.0}, {3, 200.0}, {5, 150.0}}), {}}}};

struct RandomCase {
  HoleTrace trace;
  std::vector<JobRow> jobs;
  SimOptions options;
};

RandomCase random_case(unsigned seed) {
  std::mt19937 rng(seed);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution(lo, hi)(rng); };
  RandomCase c;
  const int nodes = uniform(2, 5);
  const double end_s = uniform(1500, 4000);
  std::vector<TraceStep> steps;
  std::vector<bool> free(static_cast<std::size_t>(nodes), false);
  for (double t = 0.0; t < end_s; t += uniform(20, 400)) {
    TraceStep step{t, {}};
    for (int n = 0; n < nodes; ++n) {
      if (uniform(0, 2) != 0) continue;
      free[static_cast<std::size_t>(n)] = !free[static_cast<std::size_t>(n)];
      step.updates.push_back(free[static_cast<std::size_t>(n)] ? idle(n) : busy(n));
    }
    if (!step.updates.empty()) steps.push_back(std::move(step));
  }
  c.trace = make_trace(nodes, end_s, std::move(steps));
  // The plan: right for some holes, unknown for the others.
  for (TraceStep& step : c.trace.steps)
    for (NodeUpdate& u : step.updates)
      if (u.idle && uniform(0, 1) == 0) u.predicted_end_s = u.actual_end_s;
  const char* models[] = {"linear", "concave", "bumpy"};
  const int jobs = uniform(1, 4);
  for (int j = 0; j < jobs; ++j) {
    JobRow spec = job("j" + std::to_string(j), models[uniform(0, 2)], uniform(0, 600),
                      uniform(1, 5), uniform(1, 20) * 10'000.0);
    spec.min_nodes = uniform(1, std::min(2, spec.max_nodes));
    spec.up_cost_s = uniform(0, 30);
    spec.down_cost_s = uniform(0, 30);
    c.jobs.push_back(spec);
  }
  c.options.max_running = uniform(1, 3);
  return c;
}

TEST(UpperBoundProperty, NoPolicyTrainsMoreThanTheBoundOnRandomTraces) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RandomCase c = random_case(seed);
    for (const Policy policy : {Policy::gaptrain, Policy::bftrainer, Policy::equal_share}) {
      for (const bool learn : {false, true}) {
        for (const Placement placement : {Placement::slurm, Placement::trace}) {
          SimOptions options = c.options;
          options.policy = policy;
          options.learn = learn;
          options.placement = placement;
          SCOPED_TRACE("seed " + std::to_string(seed) + " " + std::string(to_string(policy)) +
                       (learn ? " --learn" : "") +
                       (placement == Placement::trace ? " --placement trace" : ""));
          // What the bound assumes of the core: no job trains on more hole nodes than its max.
          const StepObserver within_max = [&](const StepRecord& record) {
            for (const JobNodes& held : record.allocation)
              EXPECT_LE(held.nodes, c.jobs[static_cast<std::size_t>(held.job)].max_nodes);
          };
          const SimSummary run = simulate(c.trace, c.jobs, kRandomCurves, options, within_max);
          const UpperBound bound = useful_samples_bound(c.trace, c.jobs, kRandomCurves, options,
                                                        {run.waited_node_seconds});
          EXPECT_LE(run.useful_samples, bound.samples);
          EXPECT_GT(bound.samples, 0.0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace gaptrain::sim::upper_bound_test
