// The hole trace the simulator replays: when each node is left free by the regular workload,
// when the scheduler's plan says that hole ends, and when it really ends, and each node's type.
// Built from an SWF log (easy_backfill.hpp) or from a node-event log (node_event_trace.hpp). Plain
// data.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace gaptrain::sim {

// A hole end nobody predicted (no plan, or beyond it) or that never comes within the trace.
inline constexpr double kUnknownEnd = std::numeric_limits<double>::infinity();

// One node changing state at a step; or, for a node that stays idle, its predicted end changing.
struct NodeUpdate {
  int node = 0;       // index into HoleTrace::node_names
  bool idle = false;  // true: the regular workload leaves the node free (a hole)
  // Idle only, absolute seconds: when the regular scheduler's plan says the hole ends
  // (kUnknownEnd: no plan covers the node, or the trace has no plan at all).
  double predicted_end_s = kUnknownEnd;
  // Idle only, absolute seconds: when the hole really ends, i.e. the node's next busy update
  // (kUnknownEnd: never within the trace). No policy is told it (gaptraind sees the plan).
  double actual_end_s = kUnknownEnd;
};

struct TraceStep {
  double time_s = 0.0;  // seconds from the trace start
  std::vector<NodeUpdate> updates;
};

// Every node is busy (not offered) until its first update.
struct HoleTrace {
  std::vector<std::string> node_names;
  // Each node's type, by node; "" untyped. Empty when no node has a type.
  std::vector<std::string> node_types;
  std::vector<TraceStep> steps;  // time strictly increasing
  double end_s = 0.0;            // the end of the trace (>= the last step's time)
  // True when predicted ends come from a scheduler plan (SWF replay). Otherwise every
  // predicted_end_s is kUnknownEnd and a policy that wants one estimates it from history.
  bool has_plan = false;
};

// Fills every idle update's actual_end_s with the time of the node's next busy update.
void fill_actual_ends(HoleTrace& trace);

}  // namespace gaptrain::sim
