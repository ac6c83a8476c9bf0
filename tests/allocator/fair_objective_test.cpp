// The fair objective's exponent p (allocator::fair_value): its values at the named points, and
// an allocation it turns from one job to two.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "allocator/allocator.hpp"
#include "allocator/model/evaluate.hpp"

namespace gaptrain::allocator::fair_objective_test {
namespace {

using namespace std::string_view_literals;

TEST(FairValue, IsTheLogarithmAtZeroTheSpeedupAtOneAndFiniteForAJobWithNothing) {
  for (const double s : {0.0, 0.5, 1.0, 7.0, 1000.0}) {
    EXPECT_DOUBLE_EQ(fair_value(s, 1.0, 0.0), std::log2(1.0 + s)) << s;
    EXPECT_NEAR(fair_value(s, 1.0, 1.0), s / std::numbers::ln2, 1e-9 * (1.0 + s)) << s;
    // Pollux's p = -1: 1 - 1 / (1 + s), over ln 2; the weight scales it.
    EXPECT_NEAR(fair_value(s, 2.0, -1.0), 2.0 * (1.0 - 1.0 / (1.0 + s)) / std::numbers::ln2, 1e-12)
        << s;
  }
  // Continuous in p through 0, where the formula's own division would lose every digit.
  EXPECT_NEAR(fair_value(3.0, 1.0, 1e-7), 2.0, 1e-6);
  EXPECT_NEAR(fair_value(3.0, 1.0, -1e-7), 2.0, 1e-6);
  for (const double p : {kMinFairP, -1.0, 0.0, 0.5, kMaxFairP}) {
    EXPECT_EQ(fair_value(0.0, 1.0, p), 0.0) << p;
    // Increasing and concave in the speedup for every p of the range.
    const double a = fair_value(1.0, 1.0, p), b = fair_value(2.0, 1.0, p);
    const double c = fair_value(3.0, 1.0, p);
    EXPECT_GT(b, a) << p;
    EXPECT_GT(c, b) << p;
    EXPECT_LE(c - b, b - a + 1e-12) << p;
  }
}

AllocatableJob job(std::string id, std::vector<ScalingCurve::Point> curve) {
  AllocatableJob j;
  j.id = std::move(id);
  j.min_nodes = 1;
  j.max_nodes = 4;
  j.curve = ScalingCurve(std::move(curve));
  return j;
}

// Four idle nodes, two new jobs: a scales well (speedups 1, 2.2, 3.4, 4.6), b hardly (1, 1.2,
// 1.3, 1.4). p = 1 sums the speedups: a on 4 (4.6) beats a on 3 and b on 1 (3.4 + 1). p = -1
// sums s / (1 + s): a on 4 is 0.82, 3 + 1 is 0.77 + 0.5 = 1.27 and 2 + 2 is 0.69 + 0.55 = 1.23.
TEST(FairObjective, ItsExponentDecidesWhetherTheJobThatScalesLessGetsANode) {
  AllocationProblem problem;
  problem.horizon_s = 600.0;
  problem.objective = Objective::fair;
  for (const char* name : {"n1", "n2", "n3", "n4"}) problem.nodes.push_back({name, {}, {}});
  problem.jobs = {job("a", {{1, 10.0}, {2, 22.0}, {3, 34.0}, {4, 46.0}}),
                  job("b", {{1, 10.0}, {2, 12.0}, {3, 13.0}, {4, 14.0}})};
  const auto solve = [&](double p) {
    problem.fair_p = p;
    const AllocationResult result = allocate(problem);
    EXPECT_EQ(to_string(result.model_status), "optimal"sv) << result.message;
    EXPECT_NEAR(evaluate(problem, result.allocation), result.objective, 1e-6);
    return result;
  };
  const AllocationResult speedup = solve(1.0);
  EXPECT_EQ(speedup.allocation.at("a").size(), 4U);
  EXPECT_TRUE(speedup.allocation.at("b").empty());
  EXPECT_NEAR(speedup.objective, 600.0 * 4.6 / std::numbers::ln2, 1e-6);

  const AllocationResult pollux = solve(-1.0);
  EXPECT_EQ(pollux.allocation.at("a").size(), 3U);
  EXPECT_EQ(pollux.allocation.at("b").size(), 1U);
  EXPECT_NEAR(pollux.objective, 600.0 * (3.4 / 4.4 + 0.5) / std::numbers::ln2, 1e-6);
}

}  // namespace
}  // namespace gaptrain::allocator::fair_objective_test
