// Turns a node-event log into a hole trace. Such logs carry no scheduler plan: every predicted
// end is kUnknownEnd (has_plan false); policies that want one estimate it from history.
#pragma once

#include <vector>

#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

// Nodes are numbered in order of first appearance. Time 0 is the first row's time. Repeated
// states (idle after idle) are dropped; the trace ends at the last row's time. Actual ends are
// filled in. Nodes are busy until their first update, so a node's first row saying busy adds
// no update (it still names the node); rows at one time merge into one step of net changes, in
// node order. A node's type is the one its rows give (none: ""). Throws InputError when a row's
// time is before the previous row's.
HoleTrace trace_from_node_events(const std::vector<NodeEventRow>& rows);

}  // namespace gaptrain::sim
