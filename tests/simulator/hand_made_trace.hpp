// Hole traces written by hand for the simulator's tests: nodes n0..n<count>, each step's nodes
// freed (with the plan's predicted end, if any) or taken back.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "simulator/trace.hpp"

namespace gaptrain::testing {

using sim::fill_actual_ends;
using sim::HoleTrace;
using sim::kUnknownEnd;
using sim::NodeUpdate;
using sim::TraceStep;

inline NodeUpdate idle(int node, double predicted_end_s = kUnknownEnd) {
  return NodeUpdate{.node = node, .idle = true, .predicted_end_s = predicted_end_s};
}

inline NodeUpdate busy(int node) {
  return NodeUpdate{.node = node, .idle = false};
}

inline HoleTrace make_trace(int nodes, double end_s, std::vector<TraceStep> steps) {
  HoleTrace trace;
  for (int n = 0; n < nodes; ++n) trace.node_names.push_back("n" + std::to_string(n));
  trace.steps = std::move(steps);
  trace.end_s = end_s;
  trace.has_plan = true;
  fill_actual_ends(trace);
  return trace;
}

}  // namespace gaptrain::testing
