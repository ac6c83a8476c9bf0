// The core MILP over explicitly listed options: each job picks exactly one of its surviving
// count vectors (a multiple-choice knapsack with one capacity row per hole class). Its LP
// relaxation is the convex hull of every job's options, the tightest there is.
#pragma once

#include <chrono>
#include <span>
#include <vector>

#include "allocator/milp/milp.hpp"

namespace gaptrain::allocator {

struct JobOptions {
  std::vector<std::vector<int>> counts;  // per option: nodes of each class
  std::vector<double> value;             // per option: V_j
  int start = -1;                        // option of a known feasible allocation, or -1
};

// counts of the result follow `jobs`' order.
CountSolution solve_options(const std::vector<JobOptions>& jobs, std::span<const int> capacity,
                            double mip_gap, std::chrono::steady_clock::time_point deadline);

}  // namespace gaptrain::allocator
