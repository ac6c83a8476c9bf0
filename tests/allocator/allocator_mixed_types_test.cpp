// Jobs that mix node types in the allocator's parts: the count-level view of such a
// job, its value, the pricing dynamic program and the compact MILP, each checked on its own.
// End to end, a part that charges a mixing job's nodes of two types that leave together as two
// shrinks is often hidden (another path finds the answer, the tiny instances settle before the
// MILP); here each part must value them as one.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "allocator/allocator.hpp"
#include "allocator/decompose/best_response.hpp"
#include "allocator/milp/milp.hpp"
#include "allocator/model/evaluate.hpp"
#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator::allocator_mixed_types_test {
namespace {

using namespace std::string_view_literals;

// 2 nodes of each of 3 types: one of each ends at 300 s, one stays to the horizon (600 s). One
// job that mixes types, 100 samples/s per node; `held`: it holds a_long and b_long.
AllocationProblem three_types_ending_together(bool held) {
  AllocationProblem problem;
  for (const char* type : {"a", "b", "c"}) {
    for (const std::optional<double> end :
         {std::optional<double>(300.0), std::optional<double>()}) {
      AllocatableNode& node = problem.nodes.emplace_back();
      node.name = std::string(type) + (end ? "_short" : "_long");
      node.type = type;
      node.hole_end_s = end;
    }
  }
  if (held) problem.nodes[1].job = problem.nodes[3].job = "mixer";
  AllocatableJob& job = problem.jobs.emplace_back();
  job.id = "mixer";
  job.max_nodes = 6;
  job.curve = ScalingCurve({{1, 100.0}, {6, 600.0}});
  job.up_cost_s = 20.0;
  job.down_cost_s = 50.0;
  job.mix_types = true;
  problem.solver.mip_gap = 1e-9;
  return problem;
}

// All 6 nodes: 600 samples/s for 300 s, 300 after; one shrink at 300 s, 50 s at the job's
// reclaim rate (its current 200 samples/s when held, else its rate at its minimum, 100); a
// held job's grow costs 20 s at 200.
double all_six_worth(bool held) {
  return 300.0 * 600.0 + 300.0 * 300.0 - (held ? 20.0 * 200.0 + 50.0 * 200.0 : 50.0 * 100.0);
}

std::vector<int> every_node(const ClassedProblem& classed) {
  return classed.classes.size;
}

TEST(AllocatorMixedTypes, AMixingJobRunsOnEveryTypeAtItsOneCurve) {
  const ClassedProblem classed = classify(three_types_ending_together(true));
  const ClassedJob& job = classed.jobs[0];
  ASSERT_EQ(job.on.size(), 1U);
  EXPECT_EQ(job.on[0].type, JobOnType::kEveryType);
  for (int type = 0; type < 3; ++type) EXPECT_EQ(job.on_type(type), &job.on[0]) << type;
  EXPECT_EQ(job.held_total, 2);
  EXPECT_DOUBLE_EQ(job.current_rate, 200.0) << "its curve at its nodes of two types";
}

TEST(AllocatorMixedTypes, NodesOfSeveralTypesThatLeaveTogetherAreOneShrink) {
  for (const bool held : {false, true}) {
    const ClassedProblem classed = classify(three_types_ending_together(held));
    EXPECT_DOUBLE_EQ(job_value(classed, 0, every_node(classed)), all_six_worth(held)) << held;
  }
}

TEST(AllocatorMixedTypes, ThePricingTablePaysOneShrinkPerEnd) {
  for (const bool held : {false, true}) {
    const ClassedProblem classed = classify(three_types_ending_together(held));
    const std::vector<double> free(classed.class_count(), 0.0);
    const JobResponse response = best_response(classed, 0, free, classed.classes.size);
    EXPECT_DOUBLE_EQ(response.best, all_six_worth(held)) << held;
    EXPECT_EQ(response.counts, every_node(classed)) << held;
    // The options listed at that value: all six nodes, valued the same.
    int listed = 0;
    for_each_option_above(classed, 0, free, all_six_worth(held) - 1e-6,
                          [&](std::span<const int> counts, double value) {
                            EXPECT_DOUBLE_EQ(value, all_six_worth(held)) << held;
                            EXPECT_EQ(std::vector<int>(counts.begin(), counts.end()),
                                      every_node(classed));
                            ++listed;
                            return true;
                          });
    EXPECT_EQ(listed, 1) << held;
  }
}

TEST(AllocatorMixedTypes, TheCompactModelPaysOneShrinkPerEnd) {
  for (const bool held : {false, true}) {
    const ClassedProblem classed = classify(three_types_ending_together(held));
    SolverOptions options;
    options.mip_gap = 1e-9;
    const CountSolution solution =
        solve_counts(classed, options, std::chrono::steady_clock::now() + std::chrono::seconds(10));
    ASSERT_EQ(solution.model_status, ModelStatus::optimal) << solution.message;
    ASSERT_EQ(solution.counts.size(), 1U);
    EXPECT_EQ(solution.counts[0], every_node(classed)) << held;
    EXPECT_NEAR(solution.best_bound, all_six_worth(held), 1e-6) << held;
  }
}

TEST(AllocatorMixedTypes, AllocateGivesAllSixNodesAtOneShrink) {
  for (const bool held : {false, true}) {
    for (const int core_options : {200000, 0}) {
      AllocationProblem problem = three_types_ending_together(held);
      problem.solver.max_core_options = core_options;
      const AllocationResult result = allocate(problem);
      ASSERT_EQ(to_string(result.model_status), "optimal"sv) << result.message;
      EXPECT_NEAR(result.objective, all_six_worth(held), 1e-6) << held << " " << core_options;
      EXPECT_EQ(result.allocation.at("mixer").size(), 6U);
      EXPECT_FALSE(infeasibility(problem, result.allocation));
      EXPECT_NEAR(evaluate(problem, result.allocation), result.objective, 1e-6);
    }
  }
}

}  // namespace
}  // namespace gaptrain::allocator::allocator_mixed_types_test
