#include "allocator/equal_share.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gaptrain::allocator::equal_share_test {
namespace {

TEST(EqualShare, SplitsEquallyThenGivesLeftoversInFcfsOrder) {
  EXPECT_EQ(equal_share_counts({{1, 8}, {1, 8}, {1, 8}}, 10), (std::vector<int>{4, 3, 3}));
}

TEST(EqualShare, RespectsMaxAndPassesLeftoversOn) {
  EXPECT_EQ(equal_share_counts({{1, 2}, {1, 8}}, 10), (std::vector<int>{2, 8}));
}

TEST(EqualShare, AJobWhoseMinExceedsTheShareWaitsForLeftovers) {
  // Share 3: b (min 4) gets nothing at first; a and c take 3; 4 left go to a (up to 5, its max)
  // and then b (2 left < its min 4: nothing).
  EXPECT_EQ(equal_share_counts({{1, 5}, {4, 8}, {1, 3}}, 10), (std::vector<int>{5, 0, 3}));
  EXPECT_EQ(equal_share_counts({{1, 3}, {4, 8}, {1, 3}}, 10), (std::vector<int>{3, 4, 3}));
}

TEST(EqualShare, NothingToShare) {
  EXPECT_EQ(equal_share_counts({{1, 2}}, 0), (std::vector<int>{0}));
  EXPECT_TRUE(equal_share_counts({}, 5).empty());
}

TEST(EqualShare, AJobGetsTheLargestAllowedSizeWithinItsShare) {
  // Share 3 each: a (sizes 2, 4, 8) takes 2, not 3; b (powers of two from 4) nothing; c takes 3.
  // 5 left: a grows to 4 (8 is beyond 2 + 5); the 3 then left are too few for b.
  EXPECT_EQ(equal_share_counts({{2, 8, {2, 4, 8}}, {4, 16, {4, 8, 16}}, {1, 3}}, 10),
            (std::vector<int>{4, 0, 3}));
  EXPECT_EQ(equal_share_counts({{2, 8, {2, 4, 8}}, {2, 8, {2, 4, 8}}}, 7),
            (std::vector<int>{4, 2}));
}

TEST(EqualShare, AShareBelowTheSmallestAllowedSizeGivesNothing) {
  EXPECT_EQ(equal_share_counts({{1, 8, {4, 8}}, {1, 8, {4, 8}}, {1, 8, {4, 8}}}, 9),
            (std::vector<int>{8, 0, 0}));  // share 3 < 4: all left over, the first takes 8
  EXPECT_EQ(equal_share_counts({{1, 8, {6}}}, 5), (std::vector<int>{0}));
}

TEST(EqualShare, ShareEquallyGivesOnlyAllowedSizes) {
  AllocationProblem problem;
  for (int n = 0; n < 7; ++n) problem.nodes.push_back({"n" + std::to_string(n), {}, {}});
  problem.nodes[0].job = problem.nodes[1].job = problem.nodes[2].job = "a";  // holds 3
  for (const char* id : {"a", "b"}) {
    AllocatableJob job;
    job.id = id;
    job.min_nodes = 2;
    job.max_nodes = 8;
    job.allowed_sizes = {2, 4, 8};
    problem.jobs.push_back(job);
  }
  const AllocationResult result = share_equally(problem);
  EXPECT_EQ(result.allocation.at("a").size(), 4U);
  EXPECT_EQ(result.allocation.at("b").size(), 2U);
}

// Node types: each type's nodes are shared among the jobs on it; a job holding nodes
// stays on their type, a new one goes to the type it has a curve for with the most nodes.
TEST(EqualShare, EachTypeIsSharedAmongTheJobsOnIt) {
  AllocationProblem problem;
  for (int n = 0; n < 6; ++n) {
    AllocatableNode node{"g" + std::to_string(n), {}, {}};
    node.type = "gpu";
    problem.nodes.push_back(node);
  }
  problem.nodes.push_back({"c0", {}, {}});  // the default type
  problem.nodes.push_back({"c1", "held", {}});
  for (const char* id : {"gpu_only", "anywhere", "held", "nowhere"}) {
    AllocatableJob& job = problem.jobs.emplace_back();
    job.id = id;
    job.max_nodes = 8;
  }
  // anywhere: every type, and gpu has the most nodes; held holds c1, of the default type.
  problem.jobs[0].curves.emplace("gpu", ScalingCurve({{1, 10.0}}));
  problem.jobs[3].curves.emplace("fpga", ScalingCurve({{1, 10.0}}));
  const AllocationResult result = share_equally(problem);
  EXPECT_EQ(result.allocation.at("gpu_only"), (std::vector<std::string>{"g0", "g1", "g2"}));
  EXPECT_EQ(result.allocation.at("anywhere"), (std::vector<std::string>{"g3", "g4", "g5"}));
  EXPECT_EQ(result.allocation.at("held"), (std::vector<std::string>{"c1", "c0"}));
  EXPECT_TRUE(result.allocation.at("nowhere").empty());
}

// Jobs that mix types share what the typed jobs leave, of every type, and keep what they hold.
TEST(EqualShare, MixingJobsShareWhatTheTypedJobsLeave) {
  AllocationProblem problem;
  for (const char* name : {"g0", "g1", "g2", "g3"}) {
    AllocatableNode& node = problem.nodes.emplace_back(AllocatableNode{name, {}, {}});
    node.type = "gpu";
  }
  problem.nodes[3].job = "mixer";  // a gpu node the mixer holds, beside c0
  problem.nodes.push_back({"c0", "mixer", {}});
  problem.nodes.push_back({"c1", {}, {}});
  for (const char* id : {"gpu_only", "mixer", "other_mixer"}) {
    AllocatableJob& job = problem.jobs.emplace_back();
    job.id = id;
    job.max_nodes = 8;
  }
  problem.jobs[0].max_nodes = 2;
  problem.jobs[0].curves.emplace("gpu", ScalingCurve({{1, 10.0}}));
  problem.jobs[1].mix_types = problem.jobs[2].mix_types = true;
  const AllocationResult result = share_equally(problem);
  // gpu_only shares g0-g2 alone (up to its max 2); the mixers share the 4 nodes left: the
  // mixer keeps g3 and c0, the other takes g2 and c1.
  EXPECT_EQ(result.allocation.at("gpu_only"), (std::vector<std::string>{"g0", "g1"}));
  EXPECT_EQ(result.allocation.at("mixer"), (std::vector<std::string>{"g3", "c0"}));
  EXPECT_EQ(result.allocation.at("other_mixer"), (std::vector<std::string>{"g2", "c1"}));
  EXPECT_EQ(to_string(result.call_status), "ok");
}

}  // namespace
}  // namespace gaptrain::allocator::equal_share_test
