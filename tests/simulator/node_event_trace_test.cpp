// Node-event logs to hole traces (node_event_trace.hpp), and the actual ends (trace.hpp).
#include "simulator/node_event_trace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "gaptrain/input_error.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim::node_event_trace_test {
namespace {

constexpr double kInf = kUnknownEnd;

NodeEventRow row(double time_s, const std::string& node, const std::string& state,
                 const std::string& type = "") {
  return {time_s, node, state == "idle", type};
}

// (step time, node, idle, actual end) of every update, in trace order.
using Flat = std::tuple<double, int, bool, double>;
std::vector<Flat> flatten(const HoleTrace& trace) {
  std::vector<Flat> all;
  for (const TraceStep& step : trace.steps) {
    for (const NodeUpdate& u : step.updates) {
      all.emplace_back(step.time_s, u.node, u.idle, u.actual_end_s);
      EXPECT_EQ(u.predicted_end_s, kInf) << "a node-event log has no plan";
    }
  }
  return all;
}

TEST(NodeEventTrace, NodesInOrderOfFirstAppearanceRepeatsDroppedActualEndsFilled) {
  const HoleTrace trace = trace_from_node_events({
      row(1000, "b", "idle"),
      row(1000, "a", "busy"),  // busy until its first update anyway: no update, but named
      row(1010, "a", "idle"),
      row(1010, "b", "idle"),  // a repeat
      row(1020, "b", "busy"),
      row(1030, "c", "busy"),
      row(1040, "a", "busy"),
      row(1050, "a", "idle"),
  });
  EXPECT_EQ(trace.node_names, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_FALSE(trace.has_plan);
  EXPECT_EQ(trace.end_s, 50.0);
  const std::vector<Flat> expected = {
      {0.0, 0, true, 20.0},    // b idle until its busy row at 1020
      {10.0, 1, true, 40.0},   // a idle until 1040
      {20.0, 0, false, kInf},  //
      {40.0, 1, false, kInf},  //
      {50.0, 1, true, kInf},   // never busy again within the log
  };
  EXPECT_EQ(flatten(trace), expected);
  ASSERT_EQ(trace.steps.size(), 5u);  // one step per distinct time with a change
}

TEST(NodeEventTrace, RowsAtOneTimeMergeIntoTheirNetChange) {
  const HoleTrace trace = trace_from_node_events({
      row(5, "x", "idle"), row(5, "y", "idle"), row(9, "x", "busy"), row(9, "y", "busy"),
      row(9, "x", "idle"),  // x ends the instant idle: no change
  });
  const std::vector<Flat> expected = {
      {0.0, 0, true, kInf},
      {0.0, 1, true, 4.0},
      {4.0, 1, false, kInf},
  };
  EXPECT_EQ(flatten(trace), expected);
  EXPECT_EQ(trace.steps.size(), 2u);
}

TEST(NodeEventTrace, EachNodeHasTheTypeItsRowsGive) {
  const HoleTrace typed =
      trace_from_node_events({row(0, "a1", "idle", "a100"), row(0, "u1", "idle"),
                              row(5, "v1", "busy", ""), row(9, "v1", "idle", "v100")});
  EXPECT_EQ(typed.node_names, (std::vector<std::string>{"a1", "u1", "v1"}));
  EXPECT_EQ(typed.node_types, (std::vector<std::string>{"a100", "", "v100"}));
  // A log without types gives none: the replay then has one, default, type.
  const HoleTrace untyped = trace_from_node_events({row(0, "a1", "idle"), row(9, "a1", "busy")});
  EXPECT_TRUE(untyped.node_types.empty());
}

TEST(NodeEventTrace, EmptyLogGivesEmptyTrace) {
  const HoleTrace trace = trace_from_node_events({});
  EXPECT_TRUE(trace.node_names.empty());
  EXPECT_TRUE(trace.steps.empty());
  EXPECT_EQ(trace.end_s, 0.0);
}

TEST(NodeEventTrace, RejectsRowsOutOfTimeOrder) {
  EXPECT_THROW(trace_from_node_events({row(10, "a", "idle"), row(9, "a", "busy")}), InputError);
}

TEST(NodeEventTrace, ActualEndsCoverPredictionChangesOfOneHole) {
  // fill_actual_ends on its own: the hole's two updates (new hole, new prediction) both end at
  // the node's next busy update.
  HoleTrace trace;
  trace.node_names = {"n1"};
  trace.steps = {{0.0, {{.node = 0, .idle = true, .predicted_end_s = 50.0}}},
                 {10.0, {{.node = 0, .idle = true, .predicted_end_s = 30.0}}},
                 {30.0, {{.node = 0, .idle = false}}},
                 {40.0, {{.node = 0, .idle = true}}}};
  fill_actual_ends(trace);
  EXPECT_EQ(trace.steps[0].updates[0].actual_end_s, 30.0);
  EXPECT_EQ(trace.steps[1].updates[0].actual_end_s, 30.0);
  EXPECT_EQ(trace.steps[3].updates[0].actual_end_s, kInf);
}

// A log written with quotes and spaces names the same nodes as one without: each node is one
// node of the trace, its holes end where its own rows say (not at a phantom twin's).
TEST(NodeEventTrace, QuotedAndSpacedNamesAreTheSameNodes) {
  const HoleTrace trace =
      trace_from_node_events(parse_node_events("time,node,state\n"
                                               "0,node1,idle\n"
                                               "0, node2,idle\n"
                                               "100,\"node1\",busy\n"
                                               "150,node2 ,busy\n"
                                               "200,\"node1\" ,idle\n"
                                               "300,node1,busy\n",
                                               "events.csv"));
  EXPECT_EQ(trace.node_names, (std::vector<std::string>{"node1", "node2"}));
  const std::vector<Flat> expected = {
      {0.0, 0, true, 100.0},   {0.0, 1, true, 150.0},   {100.0, 0, false, kInf},
      {150.0, 1, false, kInf}, {200.0, 0, true, 300.0}, {300.0, 0, false, kInf},
  };
  EXPECT_EQ(flatten(trace), expected);
}

}  // namespace
}  // namespace gaptrain::sim::node_event_trace_test
