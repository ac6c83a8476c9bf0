// The model's objective and rules on hand-computed cases (docs/allocator.md, "Value of an
// allocation"). Curve used throughout: S(1) = 100, S(2) = 180 samples/s; horizon 600 s;
// up 18 s, down 12 s.
#include "allocator/model/evaluate.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace gaptrain::allocator::evaluate_test {
namespace {

AllocatableJob two_node_job(std::string id, int min_nodes = 1) {
  AllocatableJob j;
  j.id = std::move(id);
  j.min_nodes = min_nodes;
  j.max_nodes = 2;
  j.curve = ScalingCurve({{1, 100.0}, {2, 180.0}});
  j.up_cost_s = 18.0;
  j.down_cost_s = 12.0;
  return j;
}

AllocationProblem problem(std::vector<AllocatableNode> nodes, std::vector<AllocatableJob> jobs) {
  AllocationProblem p;
  p.horizon_s = 600.0;
  p.nodes = std::move(nodes);
  p.jobs = std::move(jobs);
  return p;
}

TEST(Evaluate, NewJobOnLongHolesEarnsHorizonTimesThroughput) {
  const auto p = problem({{"n1", {}, {}}, {"n2", {}, {}}}, {two_node_job("j")});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1", "n2"}}}), 600.0 * 180.0);
  EXPECT_DOUBLE_EQ(evaluate(p, {}), 0.0);
}

TEST(Evaluate, GrowPaysUpCostAtTheCurrentRate) {
  const auto p = problem({{"n1", "j", {}}, {"n2", {}, {}}}, {two_node_job("j")});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1", "n2"}}}), 600.0 * 180.0 - 18.0 * 100.0);
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1"}}}), 600.0 * 100.0);  // stays: no cost
}

TEST(Evaluate, ShrinkAndStopPayDownCostAtTheCurrentRate) {
  const auto p = problem({{"n1", "j", {}}, {"n2", "j", {}}}, {two_node_job("j")});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1"}}}), 600.0 * 100.0 - 12.0 * 180.0);
  EXPECT_DOUBLE_EQ(evaluate(p, {}), -12.0 * 180.0);
}

TEST(Evaluate, JobBelowItsMinimumHasNoRateToLose) {
  // Holds 1 node with min 2: r = 0, so growing to 2 costs nothing.
  const auto p = problem({{"n1", "j", {}}, {"n2", {}, {}}}, {two_node_job("j", 2)});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1", "n2"}}}), 600.0 * 180.0);
}

TEST(Evaluate, ShortHoleCountsOnlyUntilItEndsAndChargesAForcedShrink) {
  // New job on n1 (hole ends at 100 s) and n2 (unknown): 2 nodes for 100 s, then 1 node for
  // 500 s, and the reclaim at 100 s is a forced shrink at rho = S(min) = 100.
  const auto p = problem({{"n1", {}, 100.0}, {"n2", {}, {}}}, {two_node_job("j")});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1", "n2"}}}),
                   100.0 * 180.0 + 500.0 * 100.0 - 12.0 * 100.0);
  // On the short hole alone the job just ends there: no forced shrink.
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1"}}}), 100.0 * 100.0);
}

TEST(Evaluate, JobEndsWithItsBatchHost) {
  // The batch host n1 is reclaimed at 100 s, so the job gains nothing from n2 after that.
  auto j = two_node_job("j");
  j.batch_host = "n1";
  const auto p = problem({{"n1", "j", 100.0}, {"n2", {}, {}}}, {j});
  EXPECT_DOUBLE_EQ(evaluate(p, {{"j", {"n1", "n2"}}}), 100.0 * 180.0 - 18.0 * 100.0);
}

TEST(Infeasibility, AcceptsEveryRuleAbiding) {
  const auto p = problem({{"n1", "j", {}}, {"n2", {}, {}}}, {two_node_job("j")});
  EXPECT_EQ(infeasibility(p, {{"j", {"n1", "n2"}}}), std::nullopt);
  EXPECT_EQ(infeasibility(p, {}), std::nullopt);
}

TEST(Infeasibility, NamesTheBrokenRule) {
  auto j = two_node_job("j");
  auto k = two_node_job("k", 2);
  j.batch_host = "n1";
  const auto p = problem({{"n1", "j", {}}, {"n2", "j", {}}, {"n3", {}, {}}}, {j, k});
  EXPECT_EQ(infeasibility(p, {{"j", {"n2", "n3"}}}), "job \"j\" both gains and loses nodes");
  EXPECT_EQ(infeasibility(p, {{"j", {"n2"}}}), "job \"j\" loses its batch host \"n1\"");
  EXPECT_EQ(infeasibility(p, {{"k", {"n3"}}}), "job \"k\" given 1 nodes, outside {0} u [2, 2]");
  EXPECT_EQ(infeasibility(p, {{"j", {"n1"}}, {"k", {"n1", "n3"}}}), "node \"n1\" given twice");
  EXPECT_EQ(infeasibility(p, {{"j", {"n9"}}}), "job \"j\" given unknown node \"n9\"");
  EXPECT_EQ(infeasibility(p, {{"x", {}}}), "unknown job \"x\"");
}

}  // namespace
}  // namespace gaptrain::allocator::evaluate_test
