// Runs GLPK's simplex and branch-and-cut on a LinearModel under a deadline.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "allocator/allocation.hpp"
#include "allocator/milp/linear_model.hpp"

namespace gaptrain::allocator {

struct GlpkOutcome {
  CallStatus call_status = CallStatus::error;
  ModelStatus model_status = ModelStatus::not_solved;
  std::vector<double> values;  // column values, 1-based like GLPK (values[0] unused)
  double best_bound = 0.0;
  std::string message;
};

enum class SimplexMethod { primal, dual };

// `start` (1-based column values, or empty) is offered to the search as its first incumbent;
// it must be feasible. Without an incumbent when the deadline passes, `values` stays empty.
// The relaxation is solved with `method` (which one is faster depends on the model's shape).
GlpkOutcome solve_with_glpk(const LinearModel& model, const std::vector<double>& start,
                            double mip_gap, SimplexMethod method,
                            std::chrono::steady_clock::time_point deadline);

}  // namespace gaptrain::allocator
