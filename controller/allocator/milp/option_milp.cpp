#include "allocator/milp/option_milp.hpp"

#include "allocator/milp/glpk_solve.hpp"
#include "allocator/milp/linear_model.hpp"

namespace gaptrain::allocator {

CountSolution solve_options(const std::vector<JobOptions>& jobs, std::span<const int> capacity,
                            double mip_gap, std::chrono::steady_clock::time_point deadline) {
  LinearModel model;
  std::vector<std::vector<LinearModel::Term>> capacity_terms(capacity.size());
  std::vector<std::vector<int>> column_of(jobs.size());
  bool start_known = true;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::vector<LinearModel::Term> pick_one;
    for (std::size_t o = 0; o < jobs[j].counts.size(); ++o) {
      const int x = model.add_column(0, 1, jobs[j].value[o], LinearModel::Kind::binary);
      column_of[j].push_back(x);
      pick_one.push_back({x, 1.0});
      for (std::size_t c = 0; c < capacity.size(); ++c) {
        if (jobs[j].counts[o][c] > 0) capacity_terms[c].push_back({x, 1.0 * jobs[j].counts[o][c]});
      }
    }
    model.add_row(1, 1, std::move(pick_one));
    start_known &= jobs[j].start >= 0;
  }
  for (std::size_t c = 0; c < capacity.size(); ++c) {
    if (!capacity_terms[c].empty()) {
      model.add_row(-LinearModel::kInfinity, capacity[c], std::move(capacity_terms[c]));
    }
  }

  std::vector<double> start;
  if (start_known) {
    start.assign(static_cast<std::size_t>(model.columns()) + 1, 0.0);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      start[static_cast<std::size_t>(column_of[j][static_cast<std::size_t>(jobs[j].start)])] = 1.0;
    }
  }
  GlpkOutcome outcome = solve_with_glpk(model, start, mip_gap,
                                        SimplexMethod::primal,  // 10x faster than dual here
                                        deadline);

  CountSolution solution;
  solution.call_status = outcome.call_status;
  solution.model_status = outcome.model_status;
  solution.message = std::move(outcome.message);
  solution.best_bound = outcome.best_bound;
  solution.size = {model.columns(), model.rows(), model.integer_columns()};
  if (outcome.values.empty()) return solution;
  solution.counts.resize(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::size_t o = 0; o < column_of[j].size(); ++o) {
      if (outcome.values[static_cast<std::size_t>(column_of[j][o])] > 0.5) {
        solution.counts[j] = jobs[j].counts[o];
      }
    }
  }
  return solution;
}

}  // namespace gaptrain::allocator
