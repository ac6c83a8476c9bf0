// Allowed sizes in the allocator's parts: the count-level view of a job, and the
// restriction in the pricing dynamic program and in the compact MILP, each checked on its own.
// Under the model's valuation a count between sizes is worth what the size below is worth, so
// the optimum never needs one and an end-to-end test sees a missing restriction only on ties;
// here the rate tables are overwritten to make a disallowed count the most valuable, so that
// only the restriction keeps it out.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "allocator/allocator.hpp"
#include "allocator/decompose/best_response.hpp"
#include "allocator/milp/milp.hpp"
#include "allocator/model/evaluate.hpp"
#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator::allocator_allowed_sizes_test {
namespace {

// One job, 100 samples/s per node up to 8 nodes, on `node_count` idle nodes without hole ends;
// the first `held` nodes are the job's.
AllocationProblem one_job(std::vector<int> sizes, int node_count, int held = 0) {
  AllocationProblem problem;
  for (int n = 0; n < node_count; ++n) {
    AllocatableNode node{"n" + std::to_string(n), {}, {}};
    if (n < held) node.job = "j";
    problem.nodes.push_back(node);
  }
  AllocatableJob job;
  job.id = "j";
  job.min_nodes = 1;
  job.max_nodes = 8;
  job.allowed_sizes = std::move(sizes);
  job.curve = ScalingCurve({{1, 100.0}, {8, 800.0}});
  job.up_cost_s = 18.0;
  job.down_cost_s = 12.0;
  problem.jobs.push_back(job);
  return problem;
}

int total(std::span<const int> counts) {
  return std::accumulate(counts.begin(), counts.end(), 0);
}

TEST(AllocatorAllowedSizes, TheClassedJobKnowsItsSizesAndRunsOnTheSizeBelow) {
  const ClassedProblem classed = classify(one_job({2, 4, 8}, 10));
  const ClassedJob& job = classed.jobs[0];
  EXPECT_EQ(job.min_nodes, 2) << "the smallest size is the real minimum";
  EXPECT_EQ(job.max_nodes, 8);
  for (int k : {2, 4, 8}) EXPECT_TRUE(job.allowed(k)) << k;
  for (int k : {0, 1, 3, 5, 6, 7, 9}) EXPECT_FALSE(job.allowed(k)) << k;
  EXPECT_EQ(job.allowed_at_least(3), 4);
  EXPECT_EQ(job.allowed_at_least(1), 2);
  EXPECT_GT(job.allowed_at_least(9), job.max_nodes);
  EXPECT_EQ(job.allowed_at_most(7), 4);
  EXPECT_LT(job.allowed_at_most(1), job.min_nodes);
  const std::vector<double> floored{0, 0, 200, 200, 400, 400, 400, 400, 800};
  for (std::size_t k = 0; k < floored.size(); ++k)
    EXPECT_DOUBLE_EQ(job.on.at(0).rate[k], floored[k]) << k;
}

TEST(AllocatorAllowedSizes, SizesBeyondTheNodesAreNeverAllowed) {
  const ClassedJob job = classify(one_job({2, 4, 8}, 6)).jobs[0];
  EXPECT_EQ(job.max_nodes, 6);
  EXPECT_FALSE(job.allowed(8));
  EXPECT_EQ(job.allowed_at_most(8), 4);
  EXPECT_GT(job.allowed_at_least(5), job.max_nodes);
}

TEST(AllocatorAllowedSizes, AJobHoldingADisallowedCountMovesToAnAllowedOne) {
  const AllocationProblem problem = one_job({2, 4}, 6, /*held=*/3);
  const ClassedProblem classed = classify(problem);
  EXPECT_FALSE(classed.jobs[0].can_stay());
  EXPECT_DOUBLE_EQ(classed.jobs[0].current_rate, 200.0) << "3 nodes run as 2";

  NodeAllocation stay{{"j", {"n0", "n1", "n2"}}};
  const std::optional<std::string> why = infeasibility(problem, stay);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "job \"j\" given 3 nodes, not one of its allowed sizes");

  // Growing to 4 (600 s at 400 samples/s, less the grow at 200) beats shrinking to 2.
  const AllocationResult result = allocate(problem);
  ASSERT_EQ(result.model_status, ModelStatus::optimal) << result.message;
  EXPECT_EQ(result.allocation.at("j").size(), 4U);
  EXPECT_DOUBLE_EQ(result.objective, 600.0 * 400.0 - 18.0 * 200.0);
}

// A ClassedProblem of one new job whose rate table (not floored) peaks at `peak`, a count the
// job may not run at.
ClassedProblem peaked(std::vector<int> sizes, int node_count, int peak) {
  ClassedProblem classed = classify(one_job(std::move(sizes), node_count));
  std::vector<double>& rate = classed.jobs[0].on.at(0).rate;
  for (std::size_t k = 0; k < rate.size(); ++k) rate[k] = 100.0 * static_cast<double>(k);
  rate[static_cast<std::size_t>(peak)] = 10'000.0;
  return classed;
}

// The allowed count with the highest rate: the only right answer for a new job with one class.
int best_allowed(const ClassedJob& job) {
  int best = 0;
  for (int k = 1; k <= job.max_nodes; ++k) {
    if (job.allowed(k) && (best == 0 || job.on.at(0).rate[static_cast<std::size_t>(k)] >
                                            job.on.at(0).rate[static_cast<std::size_t>(best)])) {
      best = k;
    }
  }
  return best;
}

struct PeakCase {
  std::vector<int> sizes;  // evenly spaced, powers of two, or neither: each MILP path
  int node_count;
  int peak;
};

const std::vector<PeakCase> kPeakCases = {
    {{2, 4}, 6, 3}, {{2, 4, 6, 8}, 8, 5}, {{1, 2, 4, 8}, 8, 6}, {{3, 5, 6}, 8, 4}, {{2, 7}, 8, 6},
};

TEST(AllocatorAllowedSizes, PricingOffersAndListsOnlyAllowedTotals) {
  for (const PeakCase& c : kPeakCases) {
    const ClassedProblem classed = peaked(c.sizes, c.node_count, c.peak);
    const ClassedJob& job = classed.jobs[0];
    SCOPED_TRACE("peak at " + std::to_string(c.peak));
    const std::vector<double> price(classed.class_count(), 0.0);
    const JobResponse best = best_response(classed, 0, price, classed.classes.size);
    EXPECT_EQ(total(best.counts), best_allowed(job));
    int listed = 0;
    for_each_option_above(classed, 0, price, -std::numeric_limits<double>::infinity(),
                          [&](std::span<const int> counts, double) {
                            const int k = total(counts);
                            EXPECT_TRUE(k == 0 || job.allowed(k)) << "listed " << k;
                            ++listed;
                            return true;
                          });
    EXPECT_GT(listed, 1);
  }
}

TEST(AllocatorAllowedSizes, CompactModelChoosesOnlyAllowedTotals) {
  for (const PeakCase& c : kPeakCases) {
    const ClassedProblem classed = peaked(c.sizes, c.node_count, c.peak);
    SCOPED_TRACE("peak at " + std::to_string(c.peak));
    SolverOptions options;
    options.mip_gap = 1e-9;
    const CountSolution solution =
        solve_counts(classed, options, std::chrono::steady_clock::now() + std::chrono::seconds(10));
    ASSERT_EQ(solution.model_status, ModelStatus::optimal) << solution.message;
    ASSERT_EQ(solution.counts.size(), 1U);
    EXPECT_EQ(total(solution.counts[0]), best_allowed(classed.jobs[0]));
  }
}

}  // namespace
}  // namespace gaptrain::allocator::allocator_allowed_sizes_test
