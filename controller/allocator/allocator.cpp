#include "allocator/allocator.hpp"

#include <chrono>
#include <cmath>

#include "allocator/assign.hpp"
#include "allocator/job_value.hpp"
#include "allocator/milp.hpp"

namespace gaptrain {

AllocationResult allocate(const AllocationProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  validate(problem);
  const ClassedProblem classed = classify(problem);
  const auto deadline =
      start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(problem.solver.time_limit_s));

  CountSolution solution = solve_counts(classed, problem.solver, deadline);
  AllocationResult result;
  result.call_status = solution.call_status;
  result.model_status = solution.model_status;
  result.message = std::move(solution.message);
  if (result.call_status == CallStatus::error) solution.counts = unchanged_counts(classed);

  result.allocation = assign_nodes(problem, classed, solution.counts);
  for (std::size_t j = 0; j < classed.jobs.size(); ++j) {
    result.objective += job_value(classed, j, solution.counts[j]);
  }
  // The bound is GLPK's; the objective is recomputed exactly, so never report a bound below it.
  result.best_bound = std::max(solution.best_bound, result.objective);
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gaptrain
