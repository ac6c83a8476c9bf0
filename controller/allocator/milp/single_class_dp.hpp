// The multiple-choice knapsack of the core when all nodes are in one hole class (no hole ends
// known): solved exactly by dynamic programming over the free node count. GLPK's branch-and-bound
// stalls on these (measured: 152 jobs with 390 near-tied options left a 4.6e-6 gap after 10 s),
// while the DP needs options x nodes steps (390 x 10,000 here: well under a millisecond each).
#pragma once

#include <vector>

#include "allocator/milp/milp.hpp"
#include "allocator/milp/option_milp.hpp"

namespace gaptrain::allocator {

// Every job picks exactly one option (options have one class); at most `capacity` nodes in all.
// counts of the result follow `jobs`' order; empty with ModelStatus::infeasible when no choice
// fits.
CountSolution solve_single_class(const std::vector<JobOptions>& jobs, int capacity);

}  // namespace gaptrain::allocator
