// Invariants of the simulator on a real trace: KTH-SP2 (shared/data) replayed with EASY backfill
// and the example job mix, over a window of a few days so the test stays quick.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "simulator/easy_backfill.hpp"
#include "simulator/simulator.hpp"
#include "simulator/upper_bound.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim::simulator_real_trace_test {
namespace {

const std::string kData = GAPTRAIN_SHARED_DATA_DIR;

struct Scenario {
  HoleTrace trace;
  std::vector<JobRow> jobs;
  CurveTable curves;
};

const Scenario& kth() {
  static const Scenario scenario = [] {
    Scenario s;
    const std::string swf = kData + "/traces/KTH-SP2-1996-2.1-cln.swf.gz";
    s.trace = replay_easy_backfill(parse_swf(read_input_file(swf), swf));
    const std::string jobs = kData + "/models/jobs-example.csv";
    const std::string curves = kData + "/models/curves.csv";
    s.jobs = repeat_jobs(parse_jobs(read_input_file(jobs), jobs), 4 * 3600.0, 4 * 86400.0);
    s.curves = parse_curves(read_input_file(curves), curves);
    return s;
  }();
  return scenario;
}

SimOptions window(Policy policy) {
  SimOptions options;
  options.policy = policy;
  options.start_s = 60 * 86400.0;  // two months in: the machine is in steady use
  options.duration_s = 4 * 86400.0;
  return options;
}

// Idle node-seconds of the trace in [from, to], straight from the trace's updates.
double trace_idle_node_seconds(const HoleTrace& trace, double from, double to) {
  std::vector<double> idle_since(trace.node_names.size(), -1.0);
  double total = 0.0;
  auto close = [&](std::size_t n, double at) {
    if (idle_since[n] >= 0.0)
      total += std::max(0.0, std::min(at, to) - std::max(idle_since[n], from));
    idle_since[n] = -1.0;
  };
  for (const TraceStep& step : trace.steps) {
    for (const NodeUpdate& u : step.updates) {
      const auto n = static_cast<std::size_t>(u.node);
      if (u.idle && idle_since[n] < 0.0) idle_since[n] = step.time_s;
      if (!u.idle) close(n, step.time_s);
    }
  }
  for (std::size_t n = 0; n < idle_since.size(); ++n) close(n, to);
  return total;
}

TEST(SimulatorRealTrace, NodeSecondsAreConserved) {
  const Scenario& s = kth();
  const SimOptions options = window(Policy::gaptrain);
  std::vector<StepRecord> records;
  const SimSummary summary = simulate(s.trace, s.jobs, s.curves, options,
                                      [&](const StepRecord& r) { records.push_back(r); });
  ASSERT_GT(records.size(), 100U);

  const double end = options.start_s + options.duration_s;
  EXPECT_NEAR(summary.hole_node_seconds, trace_idle_node_seconds(s.trace, options.start_s, end),
              1e-6 * summary.hole_node_seconds);

  // Between events nothing changes: integrate the records. Per job and in total.
  double hole = 0.0, allocated = 0.0, per_job = 0.0;
  for (std::size_t k = 0; k < records.size(); ++k) {
    const double until = k + 1 < records.size() ? records[k + 1].time_s : end;
    const double dt = until - records[k].time_s;
    hole += records[k].hole_nodes * dt;
    allocated += records[k].allocated_nodes * dt;
    int held = 0;
    for (const JobNodes& jn : records[k].allocation) held += jn.nodes;
    EXPECT_EQ(held, records[k].allocated_nodes) << "at t=" << records[k].time_s;
    EXPECT_LE(records[k].allocated_nodes, records[k].hole_nodes);
    per_job += held * dt;
  }
  EXPECT_DOUBLE_EQ(records.front().time_s, options.start_s);
  EXPECT_NEAR(summary.hole_node_seconds, hole, 1e-6 * hole);
  EXPECT_NEAR(summary.allocated_node_seconds, allocated, 1e-6 * allocated);
  EXPECT_NEAR(summary.allocated_node_seconds, per_job, 1e-6 * per_job);
  EXPECT_LE(summary.allocated_node_seconds, summary.hole_node_seconds);
  EXPECT_GT(summary.utilization, 0.5);
}

// Every policy, with and without --learn, keeps the books, and trains no more than the upper
// bound (upper_bound.hpp) allows given the node-time it held after the trace took it back.
TEST(SimulatorRealTrace, EveryPolicyKeepsTheBooksAndRegularJobsWaitNoLongerThanAReclaim) {
  const Scenario& s = kth();
  std::vector<SimSummary> runs;
  double waited = 0.0;
  for (const Policy policy : {Policy::gaptrain, Policy::bftrainer, Policy::equal_share}) {
    for (const bool learn : {false, true}) {
      if (learn && policy == Policy::equal_share) continue;  // it uses no curves
      SimOptions options = window(policy);
      options.learn = learn;
      const SimSummary summary = simulate(s.trace, s.jobs, s.curves, options);
      SCOPED_TRACE(std::string(to_string(policy)) + (learn ? " --learn" : ""));
      EXPECT_GT(summary.useful_samples, 0.0);
      // A regular job the trace starts on an elastic node waits for the reclaim's grace (1 s,
      // gaptraind's default) and the poll that completes it, never longer.
      EXPECT_GT(summary.regular_waits, 0);
      EXPECT_LE(summary.regular_wait_s_max, 1.0);
      EXPECT_LE(summary.efficiency, 1.0);
      EXPECT_LE(summary.useful_samples, summary.ideal_samples);
      EXPECT_LE(summary.allocated_node_seconds, summary.hole_node_seconds);
      if (!runs.empty()) {
        EXPECT_DOUBLE_EQ(summary.hole_node_seconds, runs[0].hole_node_seconds);
      }
      waited = std::max(waited, summary.waited_node_seconds);
      runs.push_back(summary);
    }
  }
  const UpperBound bound =
      useful_samples_bound(s.trace, s.jobs, s.curves, window(Policy::gaptrain), {waited});
  for (const SimSummary& run : runs) EXPECT_LE(run.useful_samples, bound.samples);
}

// The home mode (batch scripts on the home node, satellites Slurm preempts) on the same window:
// the same holes, every reclaim a preemption (no regular job waits, no job is requeued), the
// books kept step by step, and no more trained than the bound allows without waits.
TEST(SimulatorRealTrace, TheHomeModeKeepsTheBooksAndNeitherRequeuesNorMakesARegularJobWait) {
  const Scenario& s = kth();
  SimOptions options = window(Policy::gaptrain);
  options.config.home_partition = "elastic-home";
  options.config.satellite_qos = "satellite";
  double allocated = 0.0;
  double last_time = options.start_s;
  int last_allocated = 0;
  const SimSummary home = simulate(s.trace, s.jobs, s.curves, options, [&](const StepRecord& r) {
    allocated += last_allocated * (r.time_s - last_time);
    last_time = r.time_s;
    last_allocated = r.allocated_nodes;
    int held = 0;
    for (const JobNodes& jn : r.allocation) held += jn.nodes;
    EXPECT_EQ(held, r.allocated_nodes) << "at t=" << r.time_s;
    EXPECT_LE(r.allocated_nodes, r.hole_nodes) << "at t=" << r.time_s;
  });
  allocated += last_allocated * (options.start_s + options.duration_s - last_time);
  const SimSummary today = simulate(s.trace, s.jobs, s.curves, window(Policy::gaptrain));

  EXPECT_DOUBLE_EQ(home.hole_node_seconds, today.hole_node_seconds);
  EXPECT_NEAR(home.allocated_node_seconds, allocated, 1e-6 * allocated);
  EXPECT_GT(home.utilization, 0.5);
  EXPECT_GT(home.reclaims, 0);
  EXPECT_EQ(home.preemptions, home.reclaims);
  EXPECT_EQ(home.regular_waits, 0);
  EXPECT_DOUBLE_EQ(home.waited_node_seconds, 0.0);
  EXPECT_EQ(home.requeues, 0);
  EXPECT_GT(today.requeues, 0);  // the window does take batch hosts back
  EXPECT_EQ(today.pauses, 0);
  EXPECT_LE(home.useful_samples, home.ideal_samples);
  const UpperBound bound = useful_samples_bound(s.trace, s.jobs, s.curves, options, {0.0});
  EXPECT_LE(home.useful_samples, bound.samples);
}

}  // namespace
}  // namespace gaptrain::sim::simulator_real_trace_test
