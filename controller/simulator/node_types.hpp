// `gaptrain simulate --node-types`: the replayed nodes' types, given as counts in
// node order (`a100=64,v100=64`) or as a file naming each node's type (workload_io.hpp,
// parse_node_types), onto the trace the replay runs. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "simulator/trace.hpp"
#include "simulator/workload_io.hpp"

namespace gaptrain::sim {

struct NodeTypeCount {
  std::string type;
  int nodes = 0;
};

// Whether --node-types' value is counts (TYPE=COUNT,...) rather than a file: it holds '='.
bool is_node_type_counts(std::string_view value);

// `a100=64,v100=64`: types in node order with their node counts (each >= 1, a type at most
// once). Throws InputError (field "--node-types") saying the form expected.
std::vector<NodeTypeCount> parse_node_type_counts(std::string_view value);

// The first counts[0].nodes nodes of the trace (in its order: SWF's n001, n002, ...; a node-event
// log's order of first appearance) are of counts[0].type, the next of counts[1].type, and so
// on; nodes past them keep their type (untyped unless the trace gave one). Counts beyond the
// trace's nodes type nothing.
void assign_node_types(HoleTrace& trace, const std::vector<NodeTypeCount>& counts);

// Each row's node is of its type; other nodes keep theirs. Throws InputError ("NAME:LINE") for
// a row naming a node the trace does not have.
void assign_node_types(HoleTrace& trace, const std::vector<NodeTypeRow>& rows,
                       const std::string& name);

// Throws InputError (field "JOBS_NAME:LINE") for the first job whose model runs only on some
// types (curves per type) that none of the first `nodes` nodes of the trace has: it could never
// train (the curves file's types and --node-types' disagree, or --node-types was left out).
void check_jobs_have_node_types(const HoleTrace& trace, int nodes, const std::vector<JobRow>& jobs,
                                const CurveTable& curves, const std::string& jobs_name);

}  // namespace gaptrain::sim
