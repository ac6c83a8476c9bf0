// Exact search of the multiple-choice core, bounded by the Lagrangian shortfall
// (docs/allocator.md, "Solving", step 4).
//
// At class prices p every option o of job j falls short of the job's best priced option by
// delta_j(o) >= 0, and an allocation is worth exactly L(p) minus its total shortfall
// sum_j delta_j(o_j) + p . (capacity - usage). The search finds an allocation of least total
// shortfall (within a tolerance) among those whose shortfall is at most a cutoff, or proves there
// is none. Jobs are decided one at a time; a partial allocation (its node count used in every
// class, and its shortfall so far) is dropped as soon as its shortfall plus a lower bound on what
// the remaining jobs must add (suffix_bounds.hpp) exceeds the limit.
//
// First a depth-first search with iterative deepening on that sum (IDA*): each pass looks for
// an allocation within the proven lower bound plus the tolerance, remembers the partial
// allocations that failed, and, failing, raises the lower bound to the least sum it pruned. It
// needs little memory and finds the optimum fast when the bound is tight. Past its node budget a
// breadth-first dynamic programme over class usage takes over, exact at any tolerance.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace gaptrain::allocator {

struct ShortfallOptions {
  std::vector<std::vector<int>> counts;  // per option: nodes of each class
  std::vector<double> shortfall;         // per option: delta_j(o) >= 0
};

struct ShortfallProblem {
  std::vector<ShortfallOptions> jobs;
  std::vector<int> capacity;  // per class: nodes the jobs share
  std::vector<double> price;  // per class: p_c >= 0, the price the shortfalls were taken at
  double cutoff = 0.0;        // only allocations of total shortfall <= cutoff are searched
  double tolerance = 0.0;     // a found allocation may fall short of the least by this much
  double lower_bound = 0.0;   // known already: no allocation falls short by less
};

struct ShortfallResult {
  enum class Outcome {
    found,    // `choice` is <= cutoff and within the tolerance of the least total shortfall
    none,     // no allocation has total shortfall <= cutoff
    gave_up,  // past the budget or the deadline: only `lower_bound` is proven, and `choice`
              // holds the best allocation found, if any (its shortfall in `shortfall`)
  };
  Outcome outcome = Outcome::gave_up;
  double shortfall = 0.0;    // of `choice`, when found
  std::vector<int> choice;   // per job: index of its option, when found
  double lower_bound = 0.0;  // proven in every outcome: no allocation falls short by less
  std::size_t nodes = 0;     // partial allocations the depth-first search visited
  std::size_t states = 0;    // states the dynamic programme kept, summed over jobs
};

// `budget` bounds the memory: the partial allocations the depth-first search remembers (it visits
// at most eight times as many before handing over) and the states the dynamic programme keeps
// (past them it gives up). Both give up when `deadline` passes.
ShortfallResult least_shortfall(const ShortfallProblem& problem, std::size_t budget,
                                std::chrono::steady_clock::time_point deadline);

// The dynamic programme alone (what least_shortfall falls back to), exact whatever the
// tolerance: for tests and measurements.
ShortfallResult least_shortfall_by_states(const ShortfallProblem& problem, std::size_t state_budget,
                                          std::chrono::steady_clock::time_point deadline);

}  // namespace gaptrain::allocator
