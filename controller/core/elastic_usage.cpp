#include "core/elastic_usage.hpp"

#include <utility>

namespace gaptrain::core {

NodesByOwner elastic_nodes_by_owner(const ElasticJobs& elastic, const Snapshot& snapshot,
                                    const std::string& elastic_partition) {
  const JobIndex index(snapshot);
  NodesByOwner held;
  for (const auto& [id, job] : elastic.jobs()) {
    if (job.nodes.empty()) continue;
    const Job* slurm_job = index.find(id);
    UsageOwner owner{slurm_job != nullptr ? slurm_job->partition : elastic_partition,
                     job.given.user, slurm_job != nullptr ? slurm_job->account : std::string()};
    held[std::move(owner)] += job.nodes.size();
  }
  return held;
}

NodeSecondsByOwner NodeSecondsMeter::advance(double now_s, NodesByOwner held) {
  NodeSecondsByOwner used;
  if (started_ && now_s > last_s_) {
    const double seconds = now_s - last_s_;
    for (const auto& [owner, nodes] : held_) {
      if (nodes > 0) used[owner] += static_cast<double>(nodes) * seconds;
    }
  }
  // A clock that went back is not followed: the next interval starts at the latest time seen.
  if (!started_ || now_s > last_s_) last_s_ = now_s;
  started_ = true;
  held_ = std::move(held);
  return used;
}

}  // namespace gaptrain::core
