#include "allocator/milp/single_class_dp.hpp"

#include <cstdint>
#include <limits>

namespace gaptrain::allocator {

CountSolution solve_single_class(const std::vector<JobOptions>& jobs, int capacity) {
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  const auto width = static_cast<std::size_t>(std::max(capacity, 0)) + 1;
  // best[r]: the most value of the jobs so far using exactly r nodes; pick[j][r]: option of job
  // j on the way to that.
  std::vector<double> best(width, kNone), next(width);
  best[0] = 0.0;
  std::vector<std::vector<std::uint32_t>> pick(jobs.size(), std::vector<std::uint32_t>(width));
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::fill(next.begin(), next.end(), kNone);
    for (std::size_t o = 0; o < jobs[j].counts.size(); ++o) {
      const auto nodes = static_cast<std::size_t>(jobs[j].counts[o].front());
      const double value = jobs[j].value[o];
      for (std::size_t r = nodes; r < width; ++r) {
        const double before = best[r - nodes];
        if (before == kNone || before + value <= next[r]) continue;
        next[r] = before + value;
        pick[j][r] = static_cast<std::uint32_t>(o);
      }
    }
    best.swap(next);
  }

  CountSolution solution;
  solution.call_status = CallStatus::ok;
  std::size_t used = 0;
  for (std::size_t r = 1; r < width; ++r) {
    if (best[r] > best[used]) used = r;
  }
  if (best[used] == kNone) {
    solution.model_status = ModelStatus::infeasible;
    return solution;
  }
  solution.model_status = ModelStatus::optimal;
  solution.best_bound = best[used];
  solution.counts.resize(jobs.size());
  for (std::size_t j = jobs.size(); j-- > 0;) {
    const std::vector<int>& chosen = jobs[j].counts[pick[j][used]];
    solution.counts[j] = chosen;
    used -= static_cast<std::size_t>(chosen.front());
  }
  return solution;
}

}  // namespace gaptrain::allocator
