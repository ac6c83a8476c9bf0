// The oracle bound on a real trace: three hours of 200 Summit nodes (shared/data) with the
// example job mix resubmitted every hour. gaptrain and bftrainer train no more than the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simulator/node_event_trace.hpp"
#include "simulator/simulator.hpp"
#include "simulator/upper_bound.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim::upper_bound_real_trace_test {
namespace {

const std::string kData = GAPTRAIN_SHARED_DATA_DIR;

// The policy gaptraind ships trains at least as much as the bftrainer policy on a short window
// of the Summit late week (a node log: every hole end unknown, where a rule for unknown ends
// must be no worse than BFTrainer's), and no more than the oracle bound.
TEST(UpperBoundRealTrace, GaptrainAndBftrainerStayUnderTheBoundOnSummit) {
  const std::string events = kData + "/traces/summit-2021-02-late-node-events.csv.gz";
  const HoleTrace trace =
      trace_from_node_events(parse_node_events(read_input_file(events), events));
  const std::string jobs_file = kData + "/models/jobs-example.csv";
  const std::string curves_file = kData + "/models/curves.csv";
  const CurveTable curves = parse_curves(read_input_file(curves_file), curves_file);
  SimOptions options;
  options.node_limit = 200;
  options.start_s = 0.0;
  options.duration_s = 3 * 3600.0;
  const std::vector<JobRow> jobs =
      repeat_jobs(parse_jobs(read_input_file(jobs_file), jobs_file), 3600.0, options.duration_s);

  double waited = 0.0;
  std::vector<double> useful;
  for (const Policy policy : {Policy::gaptrain, Policy::bftrainer}) {
    options.policy = policy;
    const SimSummary run = simulate(trace, jobs, curves, options);
    EXPECT_GT(run.useful_samples, 0.0);
    waited = std::max(waited, run.waited_node_seconds);
    useful.push_back(run.useful_samples);
  }
  // A smaller per-job budget than the default keeps the test quick; every budget gives a valid
  // bound.
  BoundOptions small;
  small.waited_node_seconds = waited;
  small.max_job_buckets = 1'000;
  const UpperBound bound = useful_samples_bound(trace, jobs, curves, options, small);
  for (const double u : useful) EXPECT_LE(u, bound.samples);
  EXPECT_GE(useful[0], useful[1]) << "the shipped policy trains less than bftrainer";
}

}  // namespace
}  // namespace gaptrain::sim::upper_bound_real_trace_test
