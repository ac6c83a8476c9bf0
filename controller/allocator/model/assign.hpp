// Turns per-class node counts into node names.
#pragma once

#include <vector>

#include "allocator/model/evaluate.hpp"
#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

// `counts[j][c]` must be feasible (docs/allocator.md rules 1-4 at count level). A job that keeps
// running keeps its batch host and, within a class, its own nodes before pool nodes; a growing
// job takes idle nodes and nodes released by shrinking jobs. Each job's list starts with its
// batch host (for a new job: a node of its longest-lived class). Every job appears in the map.
NodeAllocation assign_nodes(const AllocationProblem& problem, const ClassedProblem& classed,
                            const std::vector<std::vector<int>>& counts);

}  // namespace gaptrain::allocator
