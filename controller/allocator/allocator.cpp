#include "allocator/allocator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "allocator/assign.hpp"
#include "allocator/job_value.hpp"
#include "allocator/lagrangian.hpp"
#include "allocator/milp.hpp"
#include "allocator/option_milp.hpp"

namespace gaptrain {

namespace {

double total_value(const ClassedProblem& problem, const std::vector<std::vector<int>>& counts) {
  double sum = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) sum += job_value(problem, j, counts[j]);
  return sum;
}

// Every option of `job` that can appear in an allocation worth at least the incumbent: with
// prices p and bound L(p), an allocation's value is at most L(p) minus each job's shortfall
// from its best priced option, so options short by more than L(p) - incumbent are out.
std::optional<JobOptions> surviving_options(const ClassedProblem& problem,
                                            const Decomposition& d, std::size_t job,
                                            std::size_t& budget) {
  const double gap = std::max(0.0, d.bound - d.incumbent_value);
  const double slack = 1e-9 * std::max(1.0, std::abs(d.bound));
  JobOptions options;
  const bool complete = for_each_option_above(
      problem, job, d.price, d.responses[job].best - gap - slack,
      [&](std::span<const int> counts, double) {
        if (budget == 0) return false;
        --budget;
        if (std::equal(counts.begin(), counts.end(), d.incumbent[job].begin())) {
          options.start = static_cast<int>(options.counts.size());
        }
        options.counts.emplace_back(counts.begin(), counts.end());
        options.value.push_back(job_value(problem, job, counts));
        return true;
      });
  if (!complete) return std::nullopt;
  return options;
}

// Exact solve: the Lagrangian decomposition settles most jobs (those left with one surviving
// option), GLPK solves the multiple-choice MILP over the others' surviving options, and when
// too many options survive, the compact count-level MILP takes the whole problem instead.
CountSolution solve(const ClassedProblem& problem, const SolverOptions& options,
                    std::chrono::steady_clock::time_point deadline) {
  if (problem.jobs.empty()) return solve_counts(problem, options, deadline);
  const Decomposition d = decompose(problem);

  std::vector<JobOptions> core;
  std::vector<std::size_t> core_jobs;
  std::vector<int> residual = problem.classes.size;
  CountSolution solution;
  solution.counts.resize(problem.jobs.size());
  auto budget = static_cast<std::size_t>(options.max_core_options);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::optional<JobOptions> job_options = surviving_options(problem, d, j, budget);
    if (!job_options) return solve_counts(problem, options, deadline);
    if (job_options->counts.size() == 1) {
      solution.counts[j] = job_options->counts.front();
      for (std::size_t c = 0; c < residual.size(); ++c) residual[c] -= solution.counts[j][c];
    } else {
      core.push_back(std::move(*job_options));
      core_jobs.push_back(j);
    }
  }

  CountSolution core_solution = solve_options(core, residual, options.mip_gap, deadline);
  solution.call_status = core_solution.call_status;
  solution.model_status = core_solution.model_status;
  solution.message = std::move(core_solution.message);
  solution.size = core_solution.size;
  solution.core_jobs = static_cast<int>(core_jobs.size());
  if (core_solution.counts.empty()) {
    solution.counts = d.incumbent;  // the search found nothing better in time
  } else {
    for (std::size_t i = 0; i < core_jobs.size(); ++i) {
      solution.counts[core_jobs[i]] = std::move(core_solution.counts[i]);
    }
  }
  const double value = total_value(problem, solution.counts);
  if (d.incumbent_value > value) solution.counts = d.incumbent;
  solution.best_bound = solution.model_status == ModelStatus::optimal
                            ? std::max(value, d.incumbent_value)
                            : d.bound;
  return solution;
}

}  // namespace

AllocationResult allocate(const AllocationProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  validate(problem);
  const ClassedProblem classed = classify(problem);
  const auto deadline =
      start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(problem.solver.time_limit_s));

  CountSolution solution = solve(classed, problem.solver, deadline);
  AllocationResult result;
  result.call_status = solution.call_status;
  result.model_status = solution.model_status;
  result.message = std::move(solution.message);
  if (result.call_status == CallStatus::error) solution.counts = unchanged_counts(classed);

  result.allocation = assign_nodes(problem, classed, solution.counts);
  result.objective = total_value(classed, solution.counts);
  result.best_bound = std::max(solution.best_bound, result.objective);
  result.stats = {solution.size.columns, solution.size.rows, solution.size.integer_columns,
                  solution.core_jobs, static_cast<int>(classed.class_count())};
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gaptrain
