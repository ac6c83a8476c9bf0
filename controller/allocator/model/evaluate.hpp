// The allocator's objective, evaluated directly on a node-level allocation. This is the model's
// definition in executable form: the MILP must agree with it on every feasible allocation, and
// the tests enumerate allocations with it to check the MILP is exact.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allocator/allocation.hpp"

namespace gaptrain::allocator {

using NodeAllocation = std::map<std::string, std::vector<std::string>>;  // job id -> nodes

// Why `allocation` violates the model's rules (a node in two jobs, a job both growing and
// shrinking, a count outside {0} u [min, max] or not an allowed size, a dropped batch host, nodes
// of two types for a job that does not mix types or of a type the job has no curve for, an
// unknown node or job), or nullopt when it is feasible. Jobs missing from `allocation` get no
// nodes.
std::optional<std::string> infeasibility(const AllocationProblem& problem,
                                         const NodeAllocation& allocation);

// The objective value of a feasible allocation (see docs/allocator.md). Hole ends are grouped
// into classes exactly as the MILP groups them, so both see the same numbers.
double evaluate(const AllocationProblem& problem, const NodeAllocation& allocation);

}  // namespace gaptrain::allocator
