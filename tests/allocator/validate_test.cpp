// validate(): every check, each asserting the field the error names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "allocator/allocation.hpp"
#include "gaptrain/input_error.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::allocator::validate_test {
namespace {

using ::testing::HasSubstr;
using testing::input_error_from;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Two jobs; "a" holds n1 (its batch host) and n2, "b" holds nothing; n3 is idle.
AllocationProblem valid_problem() {
  AllocationProblem problem;
  problem.nodes = {{"n1", "a", 900.0}, {"n2", "a", std::nullopt}, {"n3", std::nullopt, 60.0}};
  AllocatableJob a;
  a.id = "a";
  a.min_nodes = 1;
  a.max_nodes = 4;
  a.curve = ScalingCurve({{1, 2831.0}, {2, 5259.0}, {4, 9988.0}});
  a.up_cost_s = 18;
  a.down_cost_s = 12;
  a.batch_host = "n1";
  AllocatableJob b = a;
  b.id = "b";
  b.batch_host.reset();
  problem.jobs = {a, b};
  return problem;
}

// The error validate() throws for `problem`, which must be one.
InputError error_for(const AllocationProblem& problem) {
  return input_error_from([&] { validate(problem); });
}

TEST(Validate, AcceptsValidProblem) {
  EXPECT_NO_THROW(validate(valid_problem()));
}

TEST(Validate, AcceptsEmptyProblem) {
  EXPECT_NO_THROW(validate(AllocationProblem{}));
}

// `gaptrain solve` took 200,001 nodes against its documented limit of 100,000.
TEST(Validate, RefusesMoreNodesThanAnyCluster) {
  AllocationProblem problem = valid_problem();
  while (problem.nodes.size() <= 100'000) {
    problem.nodes.push_back({"x" + std::to_string(problem.nodes.size()), std::nullopt, 60.0});
  }
  const InputError error = error_for(problem);
  EXPECT_EQ(error.field(), "nodes");
  EXPECT_THAT(error.what(), HasSubstr("holds 100001 nodes, more than any cluster has (at most "
                                      "100000)"));
  problem.nodes.pop_back();
  EXPECT_NO_THROW(validate(problem));
}

TEST(Validate, RefusesNodeNamesNoHostHas) {
  AllocationProblem problem = valid_problem();
  problem.nodes[2].name = std::string(256, 'n');
  const InputError error = error_for(problem);
  EXPECT_EQ(error.field(), "nodes[2].name");
  EXPECT_THAT(error.what(), HasSubstr("longer than 255 bytes"));
}

TEST(Validate, AcceptsBoundaryValues) {
  AllocationProblem problem = valid_problem();
  problem.jobs[0].up_cost_s = 0;
  problem.jobs[0].down_cost_s = 0;
  problem.jobs[0].min_nodes = problem.jobs[0].max_nodes = 1;
  problem.nodes[2].hole_end_s = 0.0;  // the hole ends right now
  problem.solver.mip_gap = 0;
  problem.solver.max_hole_classes = 1;
  EXPECT_NO_THROW(validate(problem));
  problem.solver.max_hole_classes = 64;
  EXPECT_NO_THROW(validate(problem));
}

TEST(Validate, HorizonMustBePositiveAndFinite) {
  for (const double bad : {0.0, -1.0, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.horizon_s = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "horizon_s") << bad;
    EXPECT_STREQ(e.what(),
                 "horizon_s: must be a finite number of seconds > 0 and at most 315360000 (ten "
                 "years)")
        << bad;
  }
}

TEST(Validate, TimeLimitMustBePositiveAndFinite) {
  for (const double bad : {0.0, -3.0, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.solver.time_limit_s = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "solver.time_limit_s") << bad;
    EXPECT_THAT(e.what(), HasSubstr("must be a finite number of seconds > 0")) << bad;
  }
}

TEST(Validate, MipGapMustBeInUnitInterval) {
  for (const double bad : {-1e-9, 1.0, 2.0, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.solver.mip_gap = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "solver.mip_gap") << bad;
    EXPECT_STREQ(e.what(), "solver.mip_gap: must be in [0, 1)") << bad;
  }
}

TEST(Validate, MaxHoleClassesMustBeBetween1And64) {
  for (const int bad : {0, -1, 65}) {
    AllocationProblem problem = valid_problem();
    problem.solver.max_hole_classes = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "solver.max_hole_classes") << bad;
    EXPECT_STREQ(e.what(), "solver.max_hole_classes: must be between 1 and 64") << bad;
  }
}

TEST(Validate, JobIdMustNotBeEmpty) {
  AllocationProblem problem = valid_problem();
  problem.jobs[1].id = "";
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "jobs[1].id");
  EXPECT_STREQ(e.what(), "jobs[1].id: must not be empty");
}

TEST(Validate, JobIdsMustBeUnique) {
  AllocationProblem problem = valid_problem();
  problem.jobs[1].id = "a";
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "jobs[1].id");
  EXPECT_STREQ(e.what(), "jobs[1].id: duplicate job id \"a\"");
}

TEST(Validate, MinNodesMustBeAtLeastOne) {
  for (const int bad : {0, -2}) {
    AllocationProblem problem = valid_problem();
    problem.jobs[1].min_nodes = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "jobs[1].min_nodes") << bad;
    EXPECT_STREQ(e.what(), "jobs[1].min_nodes: must be >= 1") << bad;
  }
}

TEST(Validate, MaxNodesMustNotBeBelowMinNodes) {
  AllocationProblem problem = valid_problem();
  problem.jobs[0].min_nodes = 4;
  problem.jobs[0].max_nodes = 2;
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "jobs[0].max_nodes");
  EXPECT_STREQ(e.what(), "jobs[0].max_nodes: must be >= min_nodes (4), got 2");
}

TEST(Validate, UpCostMustBeNonNegativeAndFinite) {
  for (const double bad : {-1.0, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.jobs[1].up_cost_s = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "jobs[1].up_cost_s") << bad;
    EXPECT_STREQ(e.what(),
                 "jobs[1].up_cost_s: must be a finite number >= 0 and at most 315360000 (ten "
                 "years of seconds)")
        << bad;
  }
}

TEST(Validate, DownCostMustBeNonNegativeAndFinite) {
  for (const double bad : {-0.5, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.jobs[0].down_cost_s = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "jobs[0].down_cost_s") << bad;
    EXPECT_STREQ(e.what(),
                 "jobs[0].down_cost_s: must be a finite number >= 0 and at most 315360000 (ten "
                 "years of seconds)")
        << bad;
  }
}

TEST(Validate, WeightMustBePositiveAndFinite) {
  for (const double bad : {0.0, -1.0, kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.jobs[1].weight = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "jobs[1].weight") << bad;
    EXPECT_STREQ(e.what(), "jobs[1].weight: must be a finite number > 0 and at most 1e6") << bad;
  }
}

TEST(Validate, NodeNameMustNotBeEmpty) {
  AllocationProblem problem = valid_problem();
  problem.nodes[2].name = "";
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "nodes[2].name");
  EXPECT_STREQ(e.what(), "nodes[2].name: must not be empty");
}

TEST(Validate, NodeNamesMustBeUnique) {
  AllocationProblem problem = valid_problem();
  problem.nodes[2].name = "n1";
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "nodes[2].name");
  EXPECT_STREQ(e.what(), "nodes[2].name: duplicate node \"n1\"");
}

TEST(Validate, NodeMustBeHeldByAKnownJob) {
  AllocationProblem problem = valid_problem();
  problem.nodes[2].job = "ghost";
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "nodes[2].job");
  EXPECT_STREQ(e.what(),
               "nodes[2].job: held by unknown job \"ghost\" (add it to \"jobs\" or set \"job\": "
               "null)");
}

TEST(Validate, HoleEndMustBeFinite) {
  for (const double bad : {kNaN, kInf}) {
    AllocationProblem problem = valid_problem();
    problem.nodes[1].hole_end_s = bad;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "nodes[1].hole_end_s") << bad;
    EXPECT_STREQ(e.what(), "nodes[1].hole_end_s: must be a finite number of seconds or null")
        << bad;
  }
}

TEST(Validate, HoleEndMustNotBeNegative) {
  AllocationProblem problem = valid_problem();
  problem.nodes[2].hole_end_s = -5.0;
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "nodes[2].hole_end_s");
  EXPECT_STREQ(e.what(), "nodes[2].hole_end_s: must be >= 0 (seconds from now)");
}

TEST(Validate, BatchHostMustBeHeldByTheJob) {
  struct Case {
    const char* host;
    const char* why;
  };
  for (const Case c : {Case{"n3", "idle node"}, Case{"n9", "unknown node"}}) {
    AllocationProblem problem = valid_problem();
    problem.jobs[0].batch_host = c.host;
    const InputError e = error_for(problem);
    EXPECT_EQ(e.field(), "jobs[0].batch_host") << c.why;
    EXPECT_EQ(std::string(e.what()),
              std::string("jobs[0].batch_host: node \"") + c.host + "\" is not held by job \"a\"")
        << c.why;
  }
}

TEST(Validate, BatchHostHeldByAnotherJobIsRejected) {
  AllocationProblem problem = valid_problem();
  problem.jobs[1].batch_host = "n2";  // held by "a"
  const InputError e = error_for(problem);
  EXPECT_EQ(e.field(), "jobs[1].batch_host");
  EXPECT_STREQ(e.what(), "jobs[1].batch_host: node \"n2\" is not held by job \"b\"");
}

TEST(Validate, ReportsTheFirstErrorInDocumentOrder) {
  AllocationProblem problem = valid_problem();
  problem.horizon_s = -1;
  problem.jobs[0].min_nodes = 0;
  EXPECT_EQ(error_for(problem).field(), "horizon_s");
}

}  // namespace
}  // namespace gaptrain::allocator::validate_test
