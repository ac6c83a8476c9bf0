#include "allocator/model/assign.hpp"

#include <algorithm>
#include <stdexcept>

namespace gaptrain::allocator {

NodeAllocation assign_nodes(const AllocationProblem& problem, const ClassedProblem& classed,
                            const std::vector<std::vector<int>>& counts) {
  const std::size_t classes = classed.class_count();
  std::vector<std::vector<std::size_t>> chosen(problem.jobs.size());

  // Kept nodes first: each job keeps up to its count of its own nodes per class, batch host
  // before the others. What nobody keeps forms the pool of each class.
  std::vector<std::vector<int>> still_needed = counts;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const int host = classed.batch_host_node[j];
    if (host < 0) continue;
    const auto h = static_cast<std::size_t>(host);
    int& need = still_needed[j][static_cast<std::size_t>(classed.classes.node_class[h])];
    if (need > 0) {
      chosen[j].push_back(h);
      --need;
    }
  }
  std::vector<std::vector<std::size_t>> pool(classes);
  for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
    const auto c = static_cast<std::size_t>(classed.classes.node_class[n]);
    const int holder = classed.holder[n];
    if (holder >= 0 &&
        classed.batch_host_node[static_cast<std::size_t>(holder)] == static_cast<int>(n)) {
      const auto& kept = chosen[static_cast<std::size_t>(holder)];
      if (!kept.empty() && kept.front() == n) continue;  // batch host already placed
    }
    if (holder >= 0 && still_needed[static_cast<std::size_t>(holder)][c] > 0) {
      chosen[static_cast<std::size_t>(holder)].push_back(n);
      --still_needed[static_cast<std::size_t>(holder)][c];
    } else {
      pool[c].push_back(n);
    }
  }

  // Growing jobs take pool nodes; a new job takes its longest-lived class first so that its
  // batch host (the first node) sits on its longest hole.
  std::vector<std::size_t> next(classes, 0);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    for (std::size_t c = classes; c-- > 0;) {
      for (int k = 0; k < still_needed[j][c]; ++k) {
        if (next[c] >= pool[c].size()) {
          throw std::logic_error("allocator: counts exceed the nodes of a hole class");
        }
        chosen[j].push_back(pool[c][next[c]++]);
      }
    }
  }

  NodeAllocation allocation;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::vector<std::string>& names = allocation[problem.jobs[j].id];
    names.reserve(chosen[j].size());
    for (std::size_t n : chosen[j]) names.push_back(problem.nodes[n].name);
  }
  return allocation;
}

}  // namespace gaptrain::allocator
