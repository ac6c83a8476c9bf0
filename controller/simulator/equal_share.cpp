#include "simulator/equal_share.hpp"

#include <algorithm>

namespace gaptrain::sim {

std::vector<int> equal_share_counts(const std::vector<ShareLimits>& jobs, int nodes) {
  std::vector<int> counts(jobs.size(), 0);
  if (jobs.empty() || nodes <= 0) return counts;
  const int share = nodes / static_cast<int>(jobs.size());
  int left = nodes;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const int n = std::min(share, jobs[j].max_nodes);
    if (n >= jobs[j].min_nodes) {
      counts[j] = n;
      left -= n;
    }
  }
  for (std::size_t j = 0; j < jobs.size() && left > 0; ++j) {
    const int room = jobs[j].max_nodes - counts[j];
    const int extra = std::min(room, left);
    if (counts[j] + extra < jobs[j].min_nodes) continue;
    counts[j] += extra;
    left -= extra;
  }
  return counts;
}

}  // namespace gaptrain::sim
