// Node types in the simulator: --node-types' counts and file onto the trace, the
// check that every job can run somewhere, and the ground truth of a job's rate on the types it
// holds (model_curves.hpp).
#include "simulator/node_types.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hand_made_trace.hpp"
#include "simulator/model_curves.hpp"
#include "support/input_error_testing.hpp"

namespace gaptrain::sim::node_types_test {
namespace {

using ::testing::HasSubstr;
using testing::input_error_from;
using testing::make_trace;

TEST(NodeTypeCounts, TellsCountsFromAFile) {
  EXPECT_TRUE(is_node_type_counts("a100=64,v100=64"));
  EXPECT_TRUE(is_node_type_counts("a100=64"));
  EXPECT_FALSE(is_node_type_counts("types.csv"));
  EXPECT_FALSE(is_node_type_counts("/data/node-types.csv.gz"));
}

TEST(NodeTypeCounts, ParsesTypesInNodeOrder) {
  const std::vector<NodeTypeCount> counts = parse_node_type_counts("a100=3,v100=1,cpu=2");
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].type, "a100");
  EXPECT_EQ(counts[0].nodes, 3);
  EXPECT_EQ(counts[1].type, "v100");
  EXPECT_EQ(counts[1].nodes, 1);
  EXPECT_EQ(counts[2].type, "cpu");
  EXPECT_EQ(counts[2].nodes, 2);
}

TEST(NodeTypeCounts, RejectsWhatIsNotTypeEqualsCount) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a100=64,v100", "no '=' in \"v100\""},
      {"=64", "expected a type name of 1 to 255 bytes before '=' in \"=64\""},
      {"a100=0", "expected a node count from 1 to 100000 after '=' in \"a100=0\""},
      {"a100=x", "after '=' in \"a100=x\""},
      {"a100=64,", "no '=' in \"\""},
      {"a100=1,a100=2", "type \"a100\" given twice"},
  };
  for (const auto& [value, message] : cases) {
    SCOPED_TRACE(value);
    // Captured by name: Clang 14 (the sanitized build's) cannot capture a structured binding.
    const InputError error = input_error_from([&text = value] { parse_node_type_counts(text); });
    EXPECT_EQ(error.field(), "--node-types");
    EXPECT_THAT(error.what(), HasSubstr(message));
    EXPECT_THAT(error.what(), HasSubstr("expected node types in node order as TYPE=COUNT,..."));
  }
}

TEST(NodeTypeAssignment, CountsTypeTheFirstNodesInTraceOrder) {
  HoleTrace trace = make_trace(5, 10.0, {});
  assign_node_types(trace, parse_node_type_counts("a100=2,v100=2"));
  EXPECT_EQ(trace.node_types, (std::vector<std::string>{"a100", "a100", "v100", "v100", ""}));
  // Counts beyond the trace's nodes type nothing more.
  assign_node_types(trace, parse_node_type_counts("cpu=9"));
  EXPECT_EQ(trace.node_types, std::vector<std::string>(5, "cpu"));
}

TEST(NodeTypeAssignment, AFileTypesTheNodesItNamesAndRefusesOthers) {
  HoleTrace trace = make_trace(3, 10.0, {});
  trace.node_types = {"x", "x", "x"};  // as a node-event log's type column gave them
  assign_node_types(trace, {{"n2", "v100", 2}, {"n0", "a100", 3}}, "types.csv");
  EXPECT_EQ(trace.node_types, (std::vector<std::string>{"a100", "x", "v100"}));
  const InputError error = input_error_from([&] {
    assign_node_types(trace, {{"n0", "a100", 2}, {"nid9", "a100", 5}}, "types.csv");
  });
  EXPECT_EQ(error.field(), "types.csv:5");
  EXPECT_THAT(error.what(), HasSubstr("node: \"nid9\" is not a node of the trace (its nodes are "
                                      "named as \"n0\")"));
}

TEST(NodeTypeCheck, AJobWhoseTypesNoReplayedNodeHasIsRefused) {
  HoleTrace trace = make_trace(4, 10.0, {});
  assign_node_types(trace, parse_node_type_counts("a100=2,v100=2"));
  CurveTable curves;
  curves.emplace("any", ModelCurves{ScalingCurve({{1, 1.0}}), {}});
  curves.emplace("h100-only",
                 ModelCurves{ScalingCurve({{1, 1.0}}), {{"h100", ScalingCurve({{1, 1.0}})}}});
  curves.emplace("v100-or-h100", ModelCurves{ScalingCurve({{1, 1.0}}),
                                             {{"h100", ScalingCurve({{1, 1.0}})},
                                              {"v100", ScalingCurve({{1, 1.0}})}}});
  std::vector<JobRow> jobs(3);
  jobs[0].model = "any";
  jobs[1].model = "v100-or-h100";
  jobs[2].model = "h100-only";
  jobs[2].line = 4;
  EXPECT_NO_THROW(check_jobs_have_node_types(trace, 4, {jobs[0], jobs[1]}, curves, "jobs.csv"));
  const InputError error =
      input_error_from([&] { check_jobs_have_node_types(trace, 4, jobs, curves, "jobs.csv"); });
  EXPECT_EQ(error.field(), "jobs.csv:4");
  EXPECT_THAT(error.what(), HasSubstr("model: \"h100-only\" runs only on node types \"h100\""));
  // Only the replayed nodes count: with --nodes 2 no v100 node is left.
  EXPECT_THROW(check_jobs_have_node_types(trace, 2, {jobs[1]}, curves, "jobs.csv"), InputError);
}

// ---- The ground truth ------------------------------------------------------------------------

const ModelCurves kTyped{ScalingCurve({{1, 50.0}, {4, 200.0}}),
                         {{"a100", ScalingCurve({{1, 100.0}, {4, 300.0}})},
                          {"v100", ScalingCurve({{1, 50.0}, {4, 200.0}})}}};

TEST(TrainingRate, OnOneTypeTheJobTrainsAtThatTypesCurve) {
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"a100"}, 4), 300.0);
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"v100"}, 4), 200.0);
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"a100"}, 0), 0.0);
}

TEST(TrainingRate, OnTwoTypesTheSlowestTypesCurveAtTheTotalCount) {
  // 2 a100 + 2 v100: the v100 curve at 4 nodes (synchronous steps wait for the slowest).
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"a100", "v100"}, 4), 200.0);
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"v100", "a100"}, 2), 100.0);
}

TEST(TrainingRate, OnATypeWithoutACurveTheJobTrainsNothing) {
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"cpu"}, 2), 0.0);
  EXPECT_DOUBLE_EQ(training_rate(kTyped, {"a100", ""}, 2), 0.0);
}

TEST(TrainingRate, AnUntypedModelTrainsAtItsCurveOnAnyTypes) {
  const ModelCurves untyped{ScalingCurve({{1, 10.0}, {2, 20.0}}), {}};
  EXPECT_DOUBLE_EQ(training_rate(untyped, {"a100", "v100"}, 2), 20.0);
  EXPECT_DOUBLE_EQ(training_rate(untyped, {""}, 1), 10.0);
}

TEST(CurveEnvelopes, SlowestAndFastestBoundEveryTypeAtEveryCount) {
  // Crossing curves: a is faster at 1 node, b at 4.
  const std::map<std::string, ScalingCurve> curves = {
      {"a", ScalingCurve({{1, 100.0}, {4, 200.0}})},
      {"b", ScalingCurve({{1, 50.0}, {2, 120.0}, {4, 400.0}})}};
  const ScalingCurve slowest = slowest_curve(curves);
  const ScalingCurve fastest = fastest_curve(curves);
  EXPECT_EQ(slowest.points(),
            (std::vector<ScalingCurve::Point>{{1, 50.0}, {2, 120.0}, {4, 200.0}}));
  ASSERT_EQ(fastest.points().size(), 3u);
  EXPECT_DOUBLE_EQ(fastest.at(1), 100.0);
  EXPECT_DOUBLE_EQ(fastest.at(2), 100.0 + 100.0 / 3.0);  // a's, between its measured counts
  EXPECT_DOUBLE_EQ(fastest.at(4), 400.0);
  for (int n = 1; n <= 8; ++n) {
    for (const auto& [type, curve] : curves) {
      EXPECT_LE(slowest.at(n), curve.at(n) + 1e-9) << type << " at " << n;
      EXPECT_GE(fastest.at(n), curve.at(n) - 1e-9) << type << " at " << n;
    }
  }
  const ModelCurves model{slowest, curves};
  EXPECT_EQ(fastest_curve(model), fastest);
  EXPECT_EQ(fastest_curve(ModelCurves{slowest, {}}), slowest);
}

}  // namespace
}  // namespace gaptrain::sim::node_types_test
