#include "gaptrain/allocation_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "input_error_testing.hpp"

namespace gaptrain {
namespace {

using ::testing::HasSubstr;
using testing::input_error_from;
using ::testing::Not;
using ::testing::StartsWith;

// A small valid document; tests break one thing in it at a time.
constexpr std::string_view kValid = R"({
  "nodes": [{"name": "n1", "job": "shufflenet", "hole_end_s": 900},
            {"name": "n2"}],
  "jobs": [{"id": "shufflenet", "min_nodes": 1, "max_nodes": 4,
            "curve": [[1, 2831.0], [2, 5259.0], [4, 9988.0]],
            "up_cost_s": 18, "down_cost_s": 12, "batch_host": "n1"},
           {"id": "resnet18", "min_nodes": 2, "max_nodes": 8,
            "curve": [[1, 5218.8], [2, 10582.5]],
            "up_cost_s": 25, "down_cost_s": 15}]
})";

// Parses JSON text with jsoncpp alone, so documents can be built without the code under test.
Json::Value json(std::string_view text) {
  Json::CharReaderBuilder builder;
  const std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  Json::Value value;
  std::string errors;
  if (!reader->parse(text.data(), text.data() + text.size(), &value, &errors)) {
    ADD_FAILURE() << "test document does not parse: " << errors;
  }
  return value;
}

Json::Value valid() {
  return json(kValid);
}

// The message problem_from_json() throws for `document`, which must be rejected.
std::string error_for(const Json::Value& document) {
  return input_error_from([&] { problem_from_json(document); }).what();
}

std::string error_for_text(std::string_view text) {
  return input_error_from([&] { parse_problem(text); }).what();
}

void expect_same_problem(const AllocationProblem& a, const AllocationProblem& b) {
  EXPECT_EQ(a.horizon_s, b.horizon_s);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.solver.time_limit_s, b.solver.time_limit_s);
  EXPECT_EQ(a.solver.mip_gap, b.solver.mip_gap);
  EXPECT_EQ(a.solver.max_hole_classes, b.solver.max_hole_classes);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t n = 0; n < a.nodes.size(); ++n) {
    EXPECT_EQ(a.nodes[n].name, b.nodes[n].name) << n;
    EXPECT_EQ(a.nodes[n].job, b.nodes[n].job) << n;
    EXPECT_EQ(a.nodes[n].hole_end_s, b.nodes[n].hole_end_s) << n;
    EXPECT_EQ(a.nodes[n].type, b.nodes[n].type) << n;
  }
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    const ElasticJob& x = a.jobs[j];
    const ElasticJob& y = b.jobs[j];
    EXPECT_EQ(x.id, y.id) << j;
    EXPECT_EQ(x.min_nodes, y.min_nodes) << j;
    EXPECT_EQ(x.max_nodes, y.max_nodes) << j;
    ASSERT_EQ(x.curve.points().size(), y.curve.points().size()) << j;
    for (std::size_t i = 0; i < x.curve.points().size(); ++i) {
      EXPECT_EQ(x.curve.points()[i].nodes, y.curve.points()[i].nodes) << j << "," << i;
      EXPECT_EQ(x.curve.points()[i].samples_per_s, y.curve.points()[i].samples_per_s)
          << j << "," << i;
    }
    EXPECT_EQ(x.up_cost_s, y.up_cost_s) << j;
    EXPECT_EQ(x.down_cost_s, y.down_cost_s) << j;
    EXPECT_EQ(x.batch_host, y.batch_host) << j;
    EXPECT_EQ(x.weight, y.weight) << j;
    EXPECT_EQ(x.allowed_sizes, y.allowed_sizes) << j;
    EXPECT_EQ(x.curves, y.curves) << j;
  }
}

// --- Reading ---------------------------------------------------------------------------------

TEST(ProblemFromJson, ReadsEveryField) {
  const AllocationProblem problem = parse_problem(R"({
    "horizon_s": 1200.5, "objective": "fair",
    "nodes": [{"name": "n1", "job": "j1", "hole_end_s": 30.25}, {"name": "n2", "job": null}],
    "jobs": [{"id": "j1", "min_nodes": 2, "max_nodes": 16, "curve": [[1, 100], [4, 350.5]],
              "up_cost_s": 18.5, "down_cost_s": 0, "batch_host": "n1", "weight": 0.5}],
    "solver": {"time_limit_s": 2.5, "mip_gap": 0.01, "max_hole_classes": 8}
  })");
  EXPECT_EQ(problem.horizon_s, 1200.5);
  EXPECT_EQ(problem.objective, Objective::fair);
  ASSERT_EQ(problem.nodes.size(), 2U);
  EXPECT_EQ(problem.nodes[0].name, "n1");
  EXPECT_EQ(problem.nodes[0].job, "j1");
  EXPECT_EQ(problem.nodes[0].hole_end_s, 30.25);
  EXPECT_EQ(problem.nodes[1].name, "n2");
  EXPECT_EQ(problem.nodes[1].job, std::nullopt);
  EXPECT_EQ(problem.nodes[1].hole_end_s, std::nullopt);
  ASSERT_EQ(problem.jobs.size(), 1U);
  const ElasticJob& job = problem.jobs[0];
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
  problem.objective = Objective::speedup;
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
  const ElasticJob read = problem_from_json(document).jobs[1];
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
  ElasticJob job;
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

// A node name holding a byte that is not UTF-8 came back out of `gaptrain solve` as
// "n\ufffd1", a node that is not in the input.
TEST(ProblemFromJsonErrors, TextThatIsNotUtf8) {
  const std::string text =
      "{\"nodes\": [{\"name\": \"n\xff"
      "1\"}], \"jobs\": []}";
  EXPECT_EQ(input_error_from([&] { parse_problem(text); }).what(),
            std::string("invalid JSON: byte 23 is not valid UTF-8 (JSON text must be UTF-8)"));
}

// --- Strictness: unknown keys ----------------------------------------------------------------

TEST(ProblemFromJsonErrors, UnknownTopLevelKey) {
  Json::Value document = valid();
  document["deadline_s"] = 60;
  EXPECT_EQ(error_for(document),
            "deadline_s: unknown key (allowed: horizon_s, objective, nodes, jobs, solver)");
}

// A 10 MB key made a 10 MB message. Keys are cut at 60 bytes, like values.
TEST(ProblemFromJsonErrors, AHugeUnknownKeyIsCut) {
  Json::Value document = valid();
  document[std::string(10 << 20, 'k')] = 1;
  document["nodes"][1]["n\xc3\xa9" + std::string(100, 'x')] = 1;
  EXPECT_EQ(error_for(document), "\"" + std::string(60, 'k') +
                                     "...\": unknown key (allowed: horizon_s, objective, nodes, "
                                     "jobs, solver)");
  document.removeMember(std::string(10 << 20, 'k'));
  EXPECT_THAT(error_for(document), ::testing::StartsWith("nodes[1].\"n\\u00e9" +
                                                         std::string(57, 'x') + "...\": unknown"));
}

TEST(ProblemFromJsonErrors, UnknownNodeKey) {
  Json::Value document = valid();
  document["nodes"][1]["gpus"] = 4;
  EXPECT_EQ(error_for(document),
            "nodes[1].gpus: unknown key (allowed: name, job, hole_end_s, type)");
}

TEST(ProblemFromJsonErrors, UnknownJobKey) {
  Json::Value document = valid();
  document["jobs"][0]["priority"] = 3;
  EXPECT_EQ(error_for(document),
            "jobs[0].priority: unknown key (allowed: id, min_nodes, max_nodes, curve, curves, "
            "up_cost_s, down_cost_s, batch_host, weight, batch, noise_scale, allowed_sizes, "
            "mix_types)");
}

TEST(ProblemFromJsonErrors, UnknownSolverKey) {
  Json::Value document = valid();
  document["solver"]["threads"] = 8;
  EXPECT_EQ(error_for(document),
            "solver.threads: unknown key (allowed: time_limit_s, mip_gap, max_hole_classes, "
            "max_core_options)");
}

TEST(ProblemFromJsonErrors, MisspelledKeyIsNotIgnored) {
  Json::Value document = valid();
  document["horizon"] = 60;
  EXPECT_THAT(error_for(document), StartsWith("horizon: unknown key"));
}

TEST(ProblemFromJsonErrors, OddKeysAreQuotedInThePath) {
  Json::Value document = valid();
  document["jobs"][0]["max nodes\n"] = 3;
  EXPECT_THAT(error_for(document), StartsWith("jobs[0].\"max nodes\\n\": unknown key"));
}

// --- Strictness: missing keys ----------------------------------------------------------------

TEST(ProblemFromJsonErrors, MissingNodes) {
  Json::Value document = valid();
  document.removeMember("nodes");
  EXPECT_EQ(error_for(document), "nodes: required key is missing");
}

TEST(ProblemFromJsonErrors, MissingJobs) {
  Json::Value document = valid();
  document.removeMember("jobs");
  EXPECT_EQ(error_for(document), "jobs: required key is missing");
}

TEST(ProblemFromJsonErrors, MissingNodeName) {
  Json::Value document = valid();
  document["nodes"][1].removeMember("name");
  EXPECT_EQ(error_for(document), "nodes[1].name: required key is missing");
}

TEST(ProblemFromJsonErrors, MissingJobKeys) {
  for (const char* key : {"id", "min_nodes", "max_nodes", "curve", "up_cost_s", "down_cost_s"}) {
    Json::Value document = valid();
    document["jobs"][1].removeMember(key);
    EXPECT_EQ(error_for(document), "jobs[1]." + std::string(key) + ": required key is missing");
  }
}

// --- Strictness: types -----------------------------------------------------------------------

struct TypeCase {
  const char* what;
  void (*spoil)(Json::Value&);
  std::string message;
};

class ProblemFromJsonTypeErrors : public ::testing::TestWithParam<TypeCase> {};

TEST_P(ProblemFromJsonTypeErrors, NameTheFieldAndTheValue) {
  Json::Value document = valid();
  GetParam().spoil(document);
  EXPECT_EQ(error_for(document), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    All, ProblemFromJsonTypeErrors,
    ::testing::Values(
        TypeCase{"StringForInteger", [](Json::Value& d) { d["jobs"][0]["min_nodes"] = "2"; },
                 R"(jobs[0].min_nodes: expected an integer, got "2")"},
        TypeCase{"FractionForInteger", [](Json::Value& d) { d["jobs"][0]["max_nodes"] = 2.5; },
                 "jobs[0].max_nodes: expected an integer, got 2.5"},
        TypeCase{"IntegerAboveIntRange",
                 [](Json::Value& d) { d["jobs"][0]["max_nodes"] = Json::UInt64{3000000000}; },
                 "jobs[0].max_nodes: expected an integer between -2147483648 and 2147483647, "
                 "got 3000000000"},
        TypeCase{"IntegerBelowIntRange",
                 [](Json::Value& d) { d["jobs"][0]["min_nodes"] = Json::Int64{-3000000000}; },
                 "jobs[0].min_nodes: expected an integer between -2147483648 and 2147483647, "
                 "got -3000000000"},
        TypeCase{"BoolForInteger", [](Json::Value& d) { d["jobs"][1]["min_nodes"] = true; },
                 "jobs[1].min_nodes: expected an integer, got true"},
        TypeCase{"StringForNumber", [](Json::Value& d) { d["horizon_s"] = "600"; },
                 R"(horizon_s: expected a number, got "600")"},
        TypeCase{"NullForNumber", [](Json::Value& d) { d["jobs"][0]["up_cost_s"] = Json::Value(); },
                 "jobs[0].up_cost_s: expected a number, got null"},
        TypeCase{"ArrayForNumber",
                 [](Json::Value& d) { d["jobs"][0]["down_cost_s"] = Json::arrayValue; },
                 "jobs[0].down_cost_s: expected a number, got an array"},
        TypeCase{"StringForWeight", [](Json::Value& d) { d["jobs"][1]["weight"] = "heavy"; },
                 R"(jobs[1].weight: expected a number, got "heavy")"},
        TypeCase{"NumberForObjective", [](Json::Value& d) { d["objective"] = 1; },
                 "objective: expected a string, got 1"},
        TypeCase{"UnknownObjective", [](Json::Value& d) { d["objective"] = "fastest"; },
                 R"(objective: unknown objective "fastest" (allowed: throughput, speedup, fair))"},
        TypeCase{"ObjectForNodes", [](Json::Value& d) { d["nodes"] = Json::objectValue; },
                 "nodes: expected an array, got an object"},
        TypeCase{"NullForJobs", [](Json::Value& d) { d["jobs"] = Json::Value(); },
                 "jobs: expected an array, got null"},
        TypeCase{"StringForNode", [](Json::Value& d) { d["nodes"][1] = "n2"; },
                 R"(nodes[1]: expected an object, got "n2")"},
        TypeCase{"NumberForNodeName", [](Json::Value& d) { d["nodes"][1]["name"] = 7; },
                 "nodes[1].name: expected a string, got 7"},
        TypeCase{"NumberForNodeJob", [](Json::Value& d) { d["nodes"][1]["job"] = 3; },
                 "nodes[1].job: expected a string or null, got 3"},
        TypeCase{"StringForHoleEnd", [](Json::Value& d) { d["nodes"][0]["hole_end_s"] = "soon"; },
                 R"(nodes[0].hole_end_s: expected a number or null, got "soon")"},
        TypeCase{"ArrayForJob", [](Json::Value& d) { d["jobs"][1] = Json::arrayValue; },
                 "jobs[1]: expected an object, got an array"},
        TypeCase{"NumberForJobId", [](Json::Value& d) { d["jobs"][0]["id"] = 1; },
                 "jobs[0].id: expected a string, got 1"},
        TypeCase{"NumberForBatchHost", [](Json::Value& d) { d["jobs"][0]["batch_host"] = 1; },
                 "jobs[0].batch_host: expected a string or null, got 1"},
        TypeCase{"ObjectForCurve",
                 [](Json::Value& d) { d["jobs"][0]["curve"] = Json::objectValue; },
                 "jobs[0].curve: expected an array, got an object"},
        TypeCase{"NumberForCurvePoint", [](Json::Value& d) { d["jobs"][0]["curve"][1] = 5; },
                 "jobs[0].curve[1]: expected a [nodes, samples_per_s] pair, got 5"},
        TypeCase{"ShortCurvePoint", [](Json::Value& d) { d["jobs"][0]["curve"][1].resize(1); },
                 "jobs[0].curve[1]: expected a [nodes, samples_per_s] pair, got an array of 1"},
        TypeCase{"FractionalCurveNodes", [](Json::Value& d) { d["jobs"][1]["curve"][0][0] = 1.5; },
                 "jobs[1].curve[0][0]: expected an integer, got 1.5"},
        TypeCase{"StringCurveThroughput",
                 [](Json::Value& d) { d["jobs"][1]["curve"][1][1] = "fast"; },
                 R"(jobs[1].curve[1][1]: expected a number, got "fast")"},
        TypeCase{"NumberForSolver", [](Json::Value& d) { d["solver"] = 10; },
                 "solver: expected an object, got 10"},
        TypeCase{"StringForTimeLimit", [](Json::Value& d) { d["solver"]["time_limit_s"] = "10"; },
                 R"(solver.time_limit_s: expected a number, got "10")"},
        TypeCase{"FractionForHoleClasses",
                 [](Json::Value& d) { d["solver"]["max_hole_classes"] = 2.5; },
                 "solver.max_hole_classes: expected an integer, got 2.5"},
        TypeCase{"LongStringIsCut", [](Json::Value& d) { d["horizon_s"] = std::string(100, 'x'); },
                 "horizon_s: expected a number, got \"" + std::string(40, 'x') + "...\""},
        TypeCase{"ControlCharactersAreEscaped", [](Json::Value& d) { d["horizon_s"] = "6\n00"; },
                 R"(horizon_s: expected a number, got "6\n00")"}),
    [](const ::testing::TestParamInfo<TypeCase>& param_info) {
      return std::string(param_info.param.what);
    });

TEST(ProblemFromJsonErrors, TopLevelMustBeAnObject) {
  EXPECT_EQ(error_for(json("[1, 2]")), "expected a JSON object at the top level, got an array");
  EXPECT_EQ(input_error_from([] { problem_from_json(Json::Value(3)); }).field(), "");
}

// --- Curve errors, re-anchored under their job -----------------------------------------------

TEST(ProblemFromJsonErrors, CurveNotIncreasing) {
  Json::Value document = valid();
  document["jobs"][1]["curve"] = json("[[2, 10582.5], [1, 5218.8]]");
  const InputError e = input_error_from([&] { problem_from_json(document); });
  EXPECT_EQ(e.field(), "jobs[1].curve[1]");
  EXPECT_STREQ(e.what(), "jobs[1].curve[1]: node counts must increase, got 1 after 2");
}

TEST(ProblemFromJsonErrors, CurveWithZeroNodes) {
  Json::Value document = valid();
  document["jobs"][0]["curve"][0][0] = 0;
  EXPECT_EQ(error_for(document), "jobs[0].curve[0]: node count must be >= 1, got 0");
}

TEST(ProblemFromJsonErrors, EmptyCurve) {
  Json::Value document = valid();
  document["jobs"][0]["curve"] = Json::arrayValue;
  EXPECT_EQ(error_for(document), "jobs[0].curve: needs at least one [nodes, samples_per_s] point");
}

TEST(ProblemFromJsonErrors, CurveWithNegativeThroughput) {
  Json::Value document = valid();
  document["jobs"][0]["curve"][2][1] = -1.0;
  EXPECT_EQ(error_for(document),
            "jobs[0].curve[2]: samples_per_s must be a finite number > 0 and at most 1e15, got -1 "
            "(leave out node counts whose throughput was not measured)");
}

// --- validate() runs on the result -----------------------------------------------------------

TEST(ProblemFromJsonErrors, MinAboveMax) {
  Json::Value document = valid();
  document["jobs"][0]["min_nodes"] = 4;
  document["jobs"][0]["max_nodes"] = 2;
  EXPECT_EQ(error_for(document), "jobs[0].max_nodes: must be >= min_nodes (4), got 2");
}

TEST(ProblemFromJsonErrors, NodeHeldByUnknownJob) {
  Json::Value document = valid();
  document["nodes"][1]["job"] = "ghost";
  EXPECT_THAT(error_for(document), StartsWith(R"(nodes[1].job: held by unknown job "ghost")"));
}

TEST(ProblemFromJsonErrors, NegativeUpCost) {
  Json::Value document = valid();
  document["jobs"][1]["up_cost_s"] = -1;
  EXPECT_EQ(error_for(document),
            "jobs[1].up_cost_s: must be a finite number >= 0 and at most 315360000 (ten years of "
            "seconds)");
}

TEST(ProblemFromJsonErrors, NegativeHoleEnd) {
  Json::Value document = valid();
  document["nodes"][0]["hole_end_s"] = -5;
  EXPECT_EQ(error_for(document), "nodes[0].hole_end_s: must be >= 0 (seconds from now)");
}

TEST(ProblemFromJsonErrors, DuplicateNode) {
  Json::Value document = valid();
  document["nodes"][1]["name"] = "n1";
  EXPECT_EQ(error_for(document), R"(nodes[1].name: duplicate node "n1")");
}

TEST(ProblemFromJsonErrors, BatchHostNotHeldByTheJob) {
  Json::Value document = valid();
  document["jobs"][0]["batch_host"] = "n2";
  EXPECT_EQ(error_for(document),
            R"(jobs[0].batch_host: node "n2" is not held by job "shufflenet")");
}

TEST(ProblemFromJsonErrors, SolverRangeChecked) {
  Json::Value document = valid();
  document["solver"]["max_hole_classes"] = 0;
  EXPECT_EQ(error_for(document), "solver.max_hole_classes: must be between 1 and 64");
}

// --- Syntax errors ---------------------------------------------------------------------------

TEST(ParseProblemErrors, MalformedJsonNamesLineAndColumnOnOneLine) {
  const InputError e =
      input_error_from([] { parse_problem("{\n  \"nodes\": []\n  \"jobs\": []\n}\n"); });
  EXPECT_EQ(e.field(), "");
  EXPECT_STREQ(e.what(),
               "invalid JSON: Line 3, Column 3: Missing ',' or '}' in object declaration");
}

TEST(ParseProblemErrors, EmptyText) {
  EXPECT_EQ(error_for_text(""),
            "invalid JSON: Line 1, Column 1: Syntax error: value, object or array expected.");
}

TEST(ParseProblemErrors, DuplicateKey) {
  EXPECT_EQ(error_for_text(R"({"nodes": [], "jobs": [], "nodes": []})"),
            "invalid JSON: Line 1, Column 27: Duplicate key: 'nodes'");
}

TEST(ParseProblemErrors, TrailingComma) {
  EXPECT_THAT(error_for_text(R"({"nodes": [], "jobs": [],})"),
              StartsWith("invalid JSON: Line 1, Column 26: "));
}

TEST(ParseProblemErrors, Comment) {
  EXPECT_THAT(error_for_text("// problem\n{\"nodes\": [], \"jobs\": []}"),
              StartsWith("invalid JSON: Line 1, Column 1: "));
}

TEST(ParseProblemErrors, TextAfterTheDocument) {
  EXPECT_EQ(error_for_text(R"({"nodes": [], "jobs": []} {})"),
            "invalid JSON: Line 1, Column 27: Extra non-whitespace after JSON value.");
}

TEST(ParseProblemErrors, ScalarDocument) {
  EXPECT_EQ(error_for_text("3"),
            "invalid JSON: Line 1, Column 1: A valid JSON document must be either an array or an "
            "object value.");
}

TEST(ParseProblemErrors, MessagesAreOneLine) {
  for (const char* text : {"", "{", "[1 2]", "{\"a\": \"\\q\"}", "{\"a\":\n\n 1,,}"}) {
    EXPECT_THAT(error_for_text(text), Not(HasSubstr("\n"))) << text;
  }
}

TEST(ParseProblemErrors, ErrorsInTheDocumentKeepTheirFields) {
  const InputError e = input_error_from([] { parse_problem(R"({"nodes": [], "jobs": {}})"); });
  EXPECT_EQ(e.field(), "jobs");
  EXPECT_STREQ(e.what(), "jobs: expected an array, got an object");
}

// --- Node types -------------------------------------------------------------------

// kValid with node types: n1 (held by shufflenet) an "a100", n2 of the default type; resnet18
// runs on "a100" and "h100" only.
Json::Value typed() {
  Json::Value document = valid();
  document["nodes"][0]["type"] = "a100";
  document["jobs"][1].removeMember("curve");
  document["jobs"][1]["curves"] = json(R"({"a100": [[1, 5218.8], [2, 10582.5]],
                                            "h100": [[1, 9000.0], [2, 17000.0]]})");
  return document;
}

TEST(ProblemFromJson, NodeTypesAndPerTypeCurvesAreRead) {
  const AllocationProblem problem = problem_from_json(typed());
  EXPECT_EQ(problem.nodes[0].type, "a100");
  EXPECT_EQ(problem.nodes[1].type, "") << "absent: the default type";
  EXPECT_TRUE(problem.jobs[0].curves.empty()) << "curve alone: every type";
  ASSERT_EQ(problem.jobs[1].curves.size(), 2U);
  EXPECT_EQ(problem.jobs[1].curves.at("h100").at(2.0), 17000.0);
  EXPECT_EQ(curve_on(problem.jobs[0], "h100"), &problem.jobs[0].curve);
  EXPECT_EQ(curve_on(problem.jobs[1], "a100"), &problem.jobs[1].curves.at("a100"));
  EXPECT_EQ(curve_on(problem.jobs[1], ""), nullptr) << "curves name every type it runs on";
  Json::Value document = typed();
  document["nodes"][0]["type"] = Json::Value();
  document["nodes"][0]["job"] = Json::Value();
  document["jobs"][0].removeMember("batch_host");
  EXPECT_EQ(problem_from_json(document).nodes[0].type, "") << "null: the default type";
  document["jobs"][1]["mix_types"] = false;
  EXPECT_NO_THROW(problem_from_json(document));
}

TEST(ProblemToJson, NodeTypesAndCurvesRoundTripAndAreWrittenOnlyWhenGiven) {
  const AllocationProblem problem = problem_from_json(typed());
  const Json::Value written = problem_to_json(problem);
  EXPECT_EQ(written["nodes"][0]["type"], "a100");
  EXPECT_FALSE(written["nodes"][1].isMember("type"));
  EXPECT_FALSE(written["jobs"][1].isMember("curve"));
  EXPECT_EQ(written["jobs"][1]["curves"]["h100"][1][1], 17000.0);
  EXPECT_FALSE(written["jobs"][0].isMember("curves"));
  expect_same_problem(parse_problem(to_json_text(written, false)), problem);
}

TEST(ProblemFromJson, AJobWithOneCurveMayMixTypesAndSaysSoWhenWritten) {
  Json::Value document = typed();
  document["jobs"][0]["mix_types"] = true;
  const AllocationProblem problem = problem_from_json(document);
  EXPECT_TRUE(problem.jobs[0].mix_types);
  EXPECT_FALSE(problem.jobs[1].mix_types) << "absent: one type at a time";
  const Json::Value written = problem_to_json(problem);
  EXPECT_EQ(written["jobs"][0]["mix_types"], true);
  EXPECT_FALSE(written["jobs"][1].isMember("mix_types")) << "written only when set";
  EXPECT_TRUE(problem_from_json(written).jobs[0].mix_types);
}

TEST(ProblemFromJsonErrors, NodeTypeErrorsSayWhatToDo) {
  Json::Value document = typed();
  document["jobs"][1]["curve"] = json("[[1, 1.0]]");
  EXPECT_EQ(error_for(document),
            "jobs[1].curves: give either \"curve\" (the same on every node type) or \"curves\" "
            "(per type; name \"\" for the default type), not both");
  document = typed();
  document["jobs"][1]["mix_types"] = true;  // resnet18 gives per-type curves
  EXPECT_EQ(error_for(document),
            "jobs[1].mix_types: needs one \"curve\" (the job's rate on any mix of node types), "
            "not per-type \"curves\": with a curve per type, the rate of a mix of types is "
            "unknown");
  document["jobs"][1]["mix_types"] = "yes";
  EXPECT_THAT(error_for(document), StartsWith("jobs[1].mix_types: expected true or false"));
  document = typed();
  document["jobs"][1]["curves"] = json("{}");
  EXPECT_THAT(error_for(document), StartsWith("jobs[1].curves: must name at least one node type"));
  document["jobs"][1]["curves"] = json(R"({"a100": [[1, -3.0]]})");
  EXPECT_THAT(error_for(document), StartsWith("jobs[1].curves[\"a100\"].curve[0]"));
  document = typed();
  document["nodes"][0]["type"] = 7;
  EXPECT_THAT(error_for(document), StartsWith("nodes[0].type: expected a string or null"));
}

TEST(ProblemFromJsonErrors, AJobHoldsNodesOfOneTypeItHasACurveFor) {
  Json::Value document = typed();
  document["nodes"][1]["job"] = "shufflenet";  // n2 is of the default type, n1 an a100
  EXPECT_EQ(error_for(document),
            "jobs[0]: holds nodes of two types (\"n1\": type \"a100\", \"n2\": the default "
            "type \"\"); a job runs on one node type unless it sets mix_types: release the "
            "nodes of one type");
  document["jobs"][0]["mix_types"] = true;  // shufflenet gives one curve: it may hold both
  EXPECT_NO_THROW(problem_from_json(document));
  document = typed();
  document["nodes"][1]["job"] = "resnet18";  // resnet18 has no curve on the default type
  EXPECT_EQ(error_for(document),
            "jobs[1].curves: has no curve for the default type \"\" of node \"n2\", which the job "
            "holds: add curves[\"\"] or release the node");
}

}  // namespace
}  // namespace gaptrain
