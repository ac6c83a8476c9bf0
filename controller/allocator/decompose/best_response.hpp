// One job's options when every node of class c costs price[c]: the pricing step of the
// Lagrangian decomposition (docs/allocator.md, "Solving"). Exact: a dynamic program over hole
// classes covers all of the job's feasible count vectors.
#pragma once

#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

struct JobResponse {
  static constexpr double kNone = -std::numeric_limits<double>::infinity();
  double best = kNone;      // max over options o of V_j(o) - price . o
  std::vector<int> counts;  // the option attaining `best`
};

// `limit[c]` caps the job's nodes of class c (the class size, or what is left of it).
// Turning the job off always fits, so `best` is never kNone.
JobResponse best_response(const ClassedProblem& problem, std::size_t job,
                          std::span<const double> price, std::span<const int> limit);

// Calls `visit(counts, priced_value)` for every option of the job whose priced value is at least
// `threshold`, stopping early (and returning false) once `visit` returns false.
bool for_each_option_above(const ClassedProblem& problem, std::size_t job,
                           std::span<const double> price, double threshold,
                           const std::function<bool(std::span<const int>, double)>& visit);

}  // namespace gaptrain::allocator
