// Exact search of the multiple-choice core by dynamic programming over class usage, bounded by
// the Lagrangian shortfall (docs/allocator.md, "Solving", step 4).
//
// At class prices p every option o of job j falls short of the job's best priced option by
// delta_j(o) >= 0, and an allocation is worth exactly L(p) minus its total shortfall
// sum_j delta_j(o_j) + p . (capacity - usage). The search finds the allocation of least total
// shortfall among those whose shortfall is at most a cutoff, or proves there is none: jobs are
// added one at a time, a state is the node count used in every class, and a state is dropped as
// soon as its shortfall plus a lower bound on what the remaining jobs must add exceeds the
// cutoff. The bound is exact in one class at a time: for each class a table of the least
// shortfall the remaining jobs reach when only that class's capacity binds.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace gaptrain {

struct ShortfallOptions {
  std::vector<std::vector<int>> counts;  // per option: nodes of each class
  std::vector<double> shortfall;         // per option: delta_j(o) >= 0
};

struct ShortfallProblem {
  std::vector<ShortfallOptions> jobs;
  std::vector<int> capacity;  // per class: nodes the jobs share
  std::vector<double> price;  // per class: p_c >= 0, the price the shortfalls were taken at
  double cutoff = 0.0;        // only allocations of total shortfall <= cutoff are searched
};

struct ShortfallResult {
  enum class Outcome {
    found,    // `choice` has the least total shortfall of all allocations (and is <= cutoff)
    none,     // no allocation has total shortfall <= cutoff
    gave_up,  // too many states or past the deadline: nothing proven
  };
  Outcome outcome = Outcome::gave_up;
  double shortfall = 0.0;   // of `choice`, when found
  std::vector<int> choice;  // per job: index of its option, when found
  std::size_t states = 0;   // states kept, summed over jobs (the search's memory)
};

// Gives up once more than `state_budget` states would be kept or `deadline` passes.
ShortfallResult least_shortfall(const ShortfallProblem& problem, std::size_t state_budget,
                                std::chrono::steady_clock::time_point deadline);

}  // namespace gaptrain
