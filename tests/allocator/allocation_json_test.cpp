#include "allocator/allocation_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_json_fixtures.hpp"
#include "gaptrain/input_error.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::allocator::allocation_json_test {
namespace {

using namespace json_fixtures;

// --- Reading ---------------------------------------------------------------------------------

TEST(ProblemFromJson, ReadsEveryField) {
  const AllocationProblem problem = parse_problem(R"({
    "horizon_s": 1200.5, "objective": "fair", "fair_p": -1,
    "nodes": [{"name": "n1", "job": "j1", "hole_end_s": 30.25}, {"name": "n2", "job": null}],
    "jobs": [{"id": "j1", "min_nodes": 2, "max_nodes": 16, "curve": [[1, 100], [4, 350.5]],
              "up_cost_s": 18.5, "down_cost_s": 0, "batch_host": "n1", "weight": 0.5}],
    "solver": {"time_limit_s": 2.5, "mip_gap": 0.01, "max_hole_classes": 8}
  })");
  EXPECT_EQ(problem.horizon_s, 1200.5);
  EXPECT_EQ(problem.objective, Objective::fair);
  EXPECT_EQ(problem.fair_p, -1.0);
  ASSERT_EQ(problem.nodes.size(), 2U);
  EXPECT_EQ(problem.nodes[0].name, "n1");
  EXPECT_EQ(problem.nodes[0].job, "j1");
  EXPECT_EQ(problem.nodes[0].hole_end_s, 30.25);
  EXPECT_EQ(problem.nodes[1].name, "n2");
  EXPECT_EQ(problem.nodes[1].job, std::nullopt);
  EXPECT_EQ(problem.nodes[1].hole_end_s, std::nullopt);
  ASSERT_EQ(problem.jobs.size(), 1U);
  const AllocatableJob& job = problem.jobs[0];
  EXPECT_EQ(job.id, "j1");
  EXPECT_EQ(job.min_nodes, 2);
  EXPECT_EQ(job.max_nodes, 16);
  ASSERT_EQ(job.curve.points().size(), 2U);
  EXPECT_EQ(job.curve.points()[1].nodes, 4);
  EXPECT_EQ(job.curve.points()[1].samples_per_s, 350.5);
  EXPECT_EQ(job.up_cost_s, 18.5);
  EXPECT_EQ(job.down_cost_s, 0.0);
  EXPECT_EQ(job.batch_host, "n1");
  EXPECT_EQ(job.weight, 0.5);
  EXPECT_EQ(problem.solver.time_limit_s, 2.5);
  EXPECT_EQ(problem.solver.mip_gap, 0.01);
  EXPECT_EQ(problem.solver.max_hole_classes, 8);
}

TEST(ProblemFromJson, OmittedOptionalKeysTakeTheDefaults) {
  const AllocationProblem problem = parse_problem(R"({
    "nodes": [{"name": "n1"}],
    "jobs": [{"id": "j1", "min_nodes": 1, "max_nodes": 2, "curve": [[1, 10]],
              "up_cost_s": 1, "down_cost_s": 2}]
  })");
  const AllocationProblem defaults;
  EXPECT_EQ(problem.horizon_s, 600.0);
  EXPECT_EQ(problem.horizon_s, defaults.horizon_s);
  EXPECT_EQ(problem.objective, Objective::throughput);
  EXPECT_EQ(problem.fair_p, 0.0);
  EXPECT_EQ(problem.solver.time_limit_s, defaults.solver.time_limit_s);
  EXPECT_EQ(problem.solver.mip_gap, defaults.solver.mip_gap);
  EXPECT_EQ(problem.solver.max_hole_classes, defaults.solver.max_hole_classes);
  EXPECT_EQ(problem.nodes[0].job, std::nullopt);
  EXPECT_EQ(problem.nodes[0].hole_end_s, std::nullopt);
  EXPECT_EQ(problem.jobs[0].batch_host, std::nullopt);
  EXPECT_EQ(problem.jobs[0].weight, 1.0);
}

TEST(ProblemFromJson, ABatchRangeAndNoiseScaleRoundTripAndAreChecked) {
  Json::Value document = valid();
  document["jobs"][0]["batch"] = json(R"({"tuned": 128, "max": 4096, "max_per_node": 256})");
  document["jobs"][0]["noise_scale"] = 900.0;
  const AllocationProblem problem = problem_from_json(document);
  EXPECT_EQ(problem.jobs[0].batch, (BatchRange{128, 4096, 256}));
  EXPECT_EQ(problem.jobs[0].noise_scale, 900.0);
  EXPECT_FALSE(problem.jobs[1].batch);
  const AllocationProblem back = problem_from_json(problem_to_json(problem));
  EXPECT_EQ(back.jobs[0].batch, problem.jobs[0].batch);
  EXPECT_EQ(back.jobs[0].noise_scale, problem.jobs[0].noise_scale);

  Json::Value bad = document;
  bad["jobs"][0]["batch"]["max"] = 64;
  EXPECT_THAT(error_for(bad), HasSubstr("jobs[0].batch.max"));
  bad = document;
  bad["jobs"][0]["batch"]["size"] = 1;
  EXPECT_THAT(error_for(bad), HasSubstr("unknown key"));
  bad = document;
  bad["jobs"][1]["noise_scale"] = 10.0;  // without a batch range
  EXPECT_THAT(error_for(bad), HasSubstr("jobs[1].noise_scale"));
}

TEST(ProblemFromJson, PartialSolverKeepsOtherDefaults) {
  Json::Value document = valid();
  document["solver"]["mip_gap"] = 0.05;
  const AllocationProblem problem = problem_from_json(document);
  EXPECT_EQ(problem.solver.mip_gap, 0.05);
  EXPECT_EQ(problem.solver.time_limit_s, SolverOptions{}.time_limit_s);
  EXPECT_EQ(problem.solver.max_hole_classes, SolverOptions{}.max_hole_classes);
}

TEST(ProblemFromJson, NullMeansAbsentForOptionalStringsAndHoleEnds) {
  Json::Value document = valid();
  document["nodes"][1]["job"] = Json::Value();
  document["nodes"][1]["hole_end_s"] = Json::Value();
  document["jobs"][1]["batch_host"] = Json::Value();
  const AllocationProblem problem = problem_from_json(document);
  EXPECT_EQ(problem.nodes[1].job, std::nullopt);
  EXPECT_EQ(problem.nodes[1].hole_end_s, std::nullopt);
  EXPECT_EQ(problem.jobs[1].batch_host, std::nullopt);
}

TEST(ProblemFromJson, ReadsEveryObjective) {
  for (const Objective objective : {Objective::throughput, Objective::speedup, Objective::fair}) {
    Json::Value document = valid();
    document["objective"] = std::string(to_string(objective));
    EXPECT_EQ(problem_from_json(document).objective, objective);
  }
}

TEST(ProblemFromJson, AcceptsNoNodesAndNoJobs) {
  const AllocationProblem problem = parse_problem(R"({"nodes": [], "jobs": []})");
  EXPECT_TRUE(problem.nodes.empty());
  EXPECT_TRUE(problem.jobs.empty());
}

TEST(ProblemFromJson, IntegralRealsCountAsIntegers) {
  Json::Value document = valid();
  document["jobs"][0]["max_nodes"] = 4.0;
  document["jobs"][0]["curve"][0][0] = 1.0;
  EXPECT_EQ(problem_from_json(document).jobs[0].max_nodes, 4);
}

TEST(ProblemFromJson, IntegersTakeTheWholeIntRange) {
  Json::Value document = valid();
  document["jobs"][0]["max_nodes"] = std::numeric_limits<int>::max();
  EXPECT_EQ(problem_from_json(document).jobs[0].max_nodes, std::numeric_limits<int>::max());
}

// --- Round trip ------------------------------------------------------------------------------

TEST(ProblemToJson, RoundTripsThroughText) {
  AllocationProblem problem = parse_problem(kValid);
  problem.horizon_s = 450.75;
  problem.objective = Objective::fair;
  problem.fair_p = 0.5;
  problem.jobs[1].weight = 0.25;
  problem.nodes[1].hole_end_s = 0.1;
  problem.solver = {3.5, 1e-4, 7};
  for (const bool pretty : {false, true}) {
    const std::string text = to_json_text(problem_to_json(problem), pretty);
    expect_same_problem(parse_problem(text), problem);
  }
}

TEST(ProblemToJson, WritesEveryKeyWithNullForAbsentValues) {
  const Json::Value document = problem_to_json(parse_problem(kValid));
  EXPECT_EQ(document["horizon_s"], 600.0);
  EXPECT_EQ(document["objective"], "throughput");
  EXPECT_TRUE(document["nodes"][1]["job"].isNull());
  EXPECT_TRUE(document["nodes"][1]["hole_end_s"].isNull());
  EXPECT_TRUE(document["nodes"][1].isMember("hole_end_s"));
  EXPECT_TRUE(document["jobs"][1]["batch_host"].isNull());
  EXPECT_TRUE(document["jobs"][1].isMember("batch_host"));
  EXPECT_EQ(document["jobs"][1]["weight"], 1.0);
  EXPECT_EQ(document["jobs"][0]["curve"][2][0], 4);
  EXPECT_EQ(document["jobs"][0]["curve"][2][1], 9988.0);
  EXPECT_EQ(document["solver"]["max_hole_classes"], 4);
}

// --- Allowed sizes ----------------------------------------------------------------

TEST(ProblemFromJson, AllowedSizesAreReadSortedWithoutRepeats) {
  Json::Value document = valid();
  document["jobs"][1]["allowed_sizes"] = json("[8, 2, 4, 2]");
  const AllocationProblem problem = problem_from_json(document);
  EXPECT_EQ(problem.jobs[1].allowed_sizes, (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(problem.jobs[1].min_nodes, 2);
  EXPECT_EQ(problem.jobs[1].max_nodes, 8);
  EXPECT_TRUE(problem.jobs[0].allowed_sizes.empty()) << "absent: every count";
  document["jobs"][1]["allowed_sizes"] = Json::Value();
  EXPECT_TRUE(problem_from_json(document).jobs[1].allowed_sizes.empty()) << "null: absent";
}

TEST(ProblemFromJson, AllowedSizesAloneGiveTheBounds) {
  Json::Value document = valid();
  Json::Value& job = document["jobs"][1];
  job.removeMember("min_nodes");
  job.removeMember("max_nodes");
  job["allowed_sizes"] = json("[4, 12, 8]");
  const AllocatableJob read = problem_from_json(document).jobs[1];
  EXPECT_EQ(read.min_nodes, 4);
  EXPECT_EQ(read.max_nodes, 12);

  job["min_nodes"] = 2;  // one bound given: the other still comes from the sizes
  EXPECT_EQ(problem_from_json(document).jobs[1].min_nodes, 2);
  EXPECT_EQ(problem_from_json(document).jobs[1].max_nodes, 12);
}

TEST(ProblemToJson, AllowedSizesRoundTripAndAreWrittenOnlyWhenGiven) {
  Json::Value document = valid();
  document["jobs"][1]["allowed_sizes"] = json("[2, 4, 8]");
  const AllocationProblem problem = problem_from_json(document);
  const Json::Value written = problem_to_json(problem);
  EXPECT_EQ(written["jobs"][1]["allowed_sizes"], json("[2, 4, 8]"));
  EXPECT_FALSE(written["jobs"][0].isMember("allowed_sizes"));
  expect_same_problem(parse_problem(to_json_text(written, false)), problem);
}

TEST(ProblemFromJsonErrors, AllowedSizesOutsideTheBoundsSayWhatToDo) {
  Json::Value document = valid();
  document["jobs"][1]["allowed_sizes"] = json("[2, 4, 16]");  // max_nodes is 8
  EXPECT_EQ(error_for(document),
            "jobs[1].allowed_sizes: size 16 is outside [min_nodes, max_nodes] = [2, 8]: drop it, "
            "widen min_nodes/max_nodes, or leave them out to take the smallest and largest "
            "allowed size");
  document["jobs"][1]["allowed_sizes"] = json("[1, 2]");  // min_nodes is 2
  EXPECT_THAT(error_for(document), StartsWith("jobs[1].allowed_sizes: size 1 is outside"));
}

TEST(ProblemFromJsonErrors, AllowedSizesMustBeNodeCounts) {
  Json::Value document = valid();
  document["jobs"][1].removeMember("min_nodes");
  document["jobs"][1]["allowed_sizes"] = json("[0, 2]");
  EXPECT_EQ(error_for(document),
            "jobs[1].allowed_sizes: size 0 is not a node count from 1 to 100000");
  document["jobs"][1]["allowed_sizes"] = json("[2, 200000]");
  document["jobs"][1].removeMember("max_nodes");
  EXPECT_EQ(error_for(document),
            "jobs[1].allowed_sizes: size 200000 is not a node count from 1 to 100000");
}

TEST(ProblemFromJsonErrors, AllowedSizesMustBeANonEmptyArrayOfIntegers) {
  Json::Value document = valid();
  document["jobs"][1]["allowed_sizes"] = json("[]");
  EXPECT_EQ(error_for(document),
            "jobs[1].allowed_sizes: must name at least one node count (leave it out to allow "
            "every count)");
  document["jobs"][1]["allowed_sizes"] = json("[2, 4.5]");
  EXPECT_EQ(error_for(document), "jobs[1].allowed_sizes[1]: expected an integer, got 4.5");
  document["jobs"][1]["allowed_sizes"] = 4;
  EXPECT_THAT(error_for(document), StartsWith("jobs[1].allowed_sizes: expected an array"));
}

TEST(ProblemFromJsonErrors, BoundsAreRequiredWithoutAllowedSizes) {
  Json::Value document = valid();
  document["jobs"][1].removeMember("max_nodes");
  EXPECT_EQ(error_for(document), "jobs[1].max_nodes: required key is missing");
}

TEST(ValidateJob, AllowedSizesBuiltInCodeMustBeAscendingWithoutRepeats) {
  AllocationProblem problem = parse_problem(kValid);
  problem.jobs[1].allowed_sizes = {4, 2};
  EXPECT_EQ(input_error_from([&] { validate(problem); }).what(),
            std::string("jobs[1].allowed_sizes: must be ascending without repeats (size 2 "
                        "follows 4)"));
  problem.jobs[1].allowed_sizes = {2, 2};
  EXPECT_THAT(input_error_from([&] { validate(problem); }).what(),
              HasSubstr("ascending without repeats"));
}

TEST(SizeAllowed, IsTheBoundsWithoutSizesAndTheSizesWithThem) {
  AllocatableJob job;
  job.min_nodes = 2;
  job.max_nodes = 8;
  for (int k : {2, 3, 5, 8}) EXPECT_TRUE(size_allowed(job, k)) << k;
  for (int k : {0, 1, 9}) EXPECT_FALSE(size_allowed(job, k)) << k;
  job.allowed_sizes = {2, 4, 8};
  for (int k : {2, 4, 8}) EXPECT_TRUE(size_allowed(job, k)) << k;
  for (int k : {0, 1, 3, 5, 6, 7, 9, 16}) EXPECT_FALSE(size_allowed(job, k)) << k;
}

// --- Results ---------------------------------------------------------------------------------

AllocationResult sample_result() {
  AllocationResult result;
  result.call_status = CallStatus::ok;
  result.model_status = ModelStatus::optimal;
  result.objective = 10.0;
  result.best_bound = 12.5;
  result.allocation = {{"a", {"n2", "n1"}}, {"b", {}}};
  result.solve_ms = 3.25;
  return result;
}

TEST(ResultToJson, WritesEveryField) {
  const Json::Value document = result_to_json(sample_result());
  EXPECT_EQ(document["status"], "optimal");
  EXPECT_EQ(document["objective"], 10.0);
  EXPECT_EQ(document["best_bound"], 12.5);
  EXPECT_EQ(document["solve_ms"], 3.25);
  ASSERT_TRUE(document["allocation"].isObject());
  EXPECT_EQ(document["allocation"].size(), 2U);
  EXPECT_EQ(document["allocation"]["a"][0], "n2");  // order kept: the batch host comes first
  EXPECT_EQ(document["allocation"]["a"][1], "n1");
  EXPECT_TRUE(document["allocation"]["b"].isArray());
  EXPECT_EQ(document["allocation"]["b"].size(), 0U);
  EXPECT_FALSE(document.isMember("message"));
}

TEST(ResultToJson, CompactTextIsOneLine) {
  EXPECT_EQ(to_json_text(result_to_json(sample_result()), false),
            R"({"allocation":{"a":["n2","n1"],"b":[]},"best_bound":12.5,"objective":10.0,)"
            R"("solve_ms":3.25,"status":"optimal"})");
}

TEST(ResultToJson, PrettyTextIsIndented) {
  const std::string text = to_json_text(result_to_json(sample_result()), true);
  EXPECT_THAT(text, HasSubstr("\n  \"status\": \"optimal\""));
  EXPECT_THAT(text, Not(HasSubstr("\" : ")));
  EXPECT_NE(text.back(), '\n');
}

TEST(ResultToJson, WritesMessageOnlyWhenNonEmpty) {
  AllocationResult result = sample_result();
  result.call_status = CallStatus::error;
  result.model_status = ModelStatus::not_solved;
  result.message = "glp_intopt failed: GLP_EFAIL";
  const Json::Value document = result_to_json(result);
  EXPECT_EQ(document["status"], "not_solved");
  EXPECT_EQ(document["message"], "glp_intopt failed: GLP_EFAIL");
}

TEST(ResultToJson, NamesEveryModelStatus) {
  const std::pair<ModelStatus, const char*> cases[] = {{ModelStatus::optimal, "optimal"},
                                                       {ModelStatus::time_limit, "time_limit"},
                                                       {ModelStatus::infeasible, "infeasible"},
                                                       {ModelStatus::not_solved, "not_solved"}};
  for (const auto& [status, name] : cases) {
    AllocationResult result = sample_result();
    result.model_status = status;
    EXPECT_EQ(result_to_json(result)["status"], name);
  }
}

TEST(ResultToJson, NonFiniteNumbersBecomeNull) {
  AllocationResult result = sample_result();
  result.best_bound = std::numeric_limits<double>::infinity();
  result.objective = std::numeric_limits<double>::quiet_NaN();
  const Json::Value document = result_to_json(result);
  EXPECT_TRUE(document["best_bound"].isNull());
  EXPECT_TRUE(document["objective"].isNull());
}

TEST(ToJsonText, KeepsWrittenDecimalsWithoutNoiseDigits) {
  Json::Value values(Json::arrayValue);
  values.append(0.1);
  values.append(2831.0);
  values.append(1.0 / 3.0);
  EXPECT_EQ(to_json_text(values, false), "[0.1,2831.0,0.333333333333333]");
}

// An SWF run time of 1e308 made `gaptrain simulate` write "hole_node_seconds":1e+9999,
// which is not JSON. Whatever computed it, the text stays JSON.
TEST(ToJsonText, WritesNonFiniteNumbersAsNull) {
  Json::Value summary(Json::objectValue);
  summary["hole_node_seconds"] = std::numeric_limits<double>::infinity();
  summary["parameters"]["rates"].append(-std::numeric_limits<double>::infinity());
  summary["parameters"]["rates"].append(std::numeric_limits<double>::quiet_NaN());
  summary["parameters"]["rates"].append(1.5);
  EXPECT_EQ(to_json_text(summary, false),
            "{\"hole_node_seconds\":null,\"parameters\":{\"rates\":[null,null,1.5]}}");
}

}  // namespace
}  // namespace gaptrain::allocator::allocation_json_test
