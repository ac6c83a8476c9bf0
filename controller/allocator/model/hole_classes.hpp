// Groups nodes into hole-end classes: nodes that stay available for the same part of the
// horizon are interchangeable, which is what keeps the MILP small (docs/allocator.md).
#pragma once

#include <vector>

#include "gaptrain/allocation.hpp"

namespace gaptrain {

struct HoleClasses {
  std::vector<double> end_s;    // availability of each class, strictly increasing, <= horizon
  std::vector<int> size;        // nodes in each class
  std::vector<int> node_class;  // class of problem.nodes[i]
};

// A node is available for min(hole_end_s, horizon) seconds (the horizon when unknown).
// With more distinct availabilities than solver.max_hole_classes, the horizon class stays alone
// and the others are cut into groups of about equal node count, each rounded down to its
// smallest member; max_hole_classes == 1 ignores hole ends (BFTrainer).
HoleClasses classify_holes(const AllocationProblem& problem);

}  // namespace gaptrain
