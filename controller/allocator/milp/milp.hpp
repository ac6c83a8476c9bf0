// The count-level MILP of docs/allocator.md, built and solved with GLPK.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "allocator/allocation.hpp"
#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

struct ModelSize {
  int columns = 0;
  int rows = 0;
  int integer_columns = 0;
};

struct CountSolution {
  CallStatus call_status = CallStatus::error;
  ModelStatus model_status = ModelStatus::not_solved;
  std::vector<std::vector<int>> counts;  // [job][class]: nodes of each class the job gets
  double best_bound = 0.0;
  ModelSize size;
  int core_jobs = 0;  // jobs left to the MILP after the decomposition
  std::string message;
};

// Solves the compact count-level MILP for per-class node counts. `counts` stays empty when GLPK
// found no allocation in time (or failed); "nothing moves" is offered as a first incumbent
// whenever it fits the class sizes.
CountSolution solve_counts(const ClassedProblem& problem, const SolverOptions& options,
                           std::chrono::steady_clock::time_point deadline);

// Every job keeps its nodes when that is feasible, else gets none: always feasible.
std::vector<std::vector<int>> unchanged_counts(const ClassedProblem& problem);

}  // namespace gaptrain::allocator
