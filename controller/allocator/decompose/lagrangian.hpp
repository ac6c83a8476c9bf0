// Lagrangian relaxation of the count-level MILP: price each hole class, let every job pick its
// best option alone (an upper bound), and repair that into a feasible allocation (a lower bound).
// See docs/allocator.md, "Solving".
#pragma once

#include <chrono>
#include <vector>

#include "allocator/decompose/best_response.hpp"
#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

struct Decomposition {
  std::vector<double> price;                // per class
  double bound = 0.0;                       // L(price): no allocation is worth more
  std::vector<JobResponse> responses;       // each job's best option at `price`
  std::vector<std::vector<int>> incumbent;  // a feasible allocation (counts per job and class)
  double incumbent_value = 0.0;
  // Jobs split between options in column generation's last LP (empty with a single class):
  // where the incumbent most likely departs from the optimum.
  std::vector<std::size_t> fractional;
};

// Stops refining (column generation rounds, local search) once `deadline` has passed; the bound
// and incumbent returned are valid whenever it stops.
Decomposition decompose(const ClassedProblem& problem,
                        std::chrono::steady_clock::time_point deadline);

}  // namespace gaptrain::allocator
