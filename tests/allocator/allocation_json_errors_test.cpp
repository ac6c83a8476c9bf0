// allocation_json's reader refuses every malformed problem with a message that names the field
// and says what was expected: text that is not UTF-8, unknown and missing keys, wrong types,
// bad curves, and what validate() finds in the result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_json_fixtures.hpp"
#include "allocator/allocation_json.hpp"

namespace gaptrain::allocator::allocation_json_errors_test {
namespace {

using namespace json_fixtures;

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
            "deadline_s: unknown key (allowed: horizon_s, objective, fair_p, nodes, jobs, solver)");
}

// A 10 MB key made a 10 MB message. Keys are cut at 60 bytes, like values.
TEST(ProblemFromJsonErrors, AHugeUnknownKeyIsCut) {
  Json::Value document = valid();
  document[std::string(10 << 20, 'k')] = 1;
  document["nodes"][1]["n\xc3\xa9" + std::string(100, 'x')] = 1;
  EXPECT_EQ(error_for(document), "\"" + std::string(60, 'k') +
                                     "...\": unknown key (allowed: horizon_s, objective, fair_p, "
                                     "nodes, jobs, solver)");
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
}  // namespace gaptrain::allocator::allocation_json_errors_test
