// Groups nodes into hole-end classes: nodes that stay available for the same part of the
// horizon are interchangeable, which is what keeps the MILP small (docs/allocator.md).
#pragma once

#include <string>
#include <vector>

#include "allocator/allocation.hpp"

namespace gaptrain::allocator {

struct HoleClasses {
  // Availability of each class, <= horizon, non-decreasing: strictly increasing among the
  // classes of one type (classes of different types may share one).
  std::vector<double> end_s;
  std::vector<int> type;               // node type of each class, an index into type_name
  std::vector<int> size;               // nodes in each class
  std::vector<int> node_class;         // class of problem.nodes[i]
  std::vector<std::string> type_name;  // the node types present, ascending ("" first)
};

// A class is a (node type, availability) pair: nodes of one type are grouped as below, each type
// on its own (at most solver.max_hole_classes classes per type).
// A node is available for min(hole_end_s, horizon) seconds (the horizon when unknown).
// With more distinct availabilities than solver.max_hole_classes, the horizon class stays alone
// and the others are cut into groups of about equal node count, each rounded down to its
// smallest member; max_hole_classes == 1 ignores hole ends (BFTrainer).
HoleClasses classify_holes(const AllocationProblem& problem);

}  // namespace gaptrain::allocator
