#include "allocator/equal_share.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>

namespace gaptrain {

namespace {

// The largest count <= `nodes` the job may run at, or 0 when none.
int largest_allowed(const ShareLimits& job, int nodes) {
  const int most = std::min(nodes, job.max_nodes);
  if (most < job.min_nodes) return 0;
  if (job.allowed_sizes.empty()) return most;
  const auto above = std::upper_bound(job.allowed_sizes.begin(), job.allowed_sizes.end(), most);
  if (above == job.allowed_sizes.begin()) return 0;
  const int size = *std::prev(above);
  return size >= job.min_nodes ? size : 0;
}

}  // namespace

std::vector<int> equal_share_counts(const std::vector<ShareLimits>& jobs, int nodes) {
  std::vector<int> counts(jobs.size(), 0);
  if (jobs.empty() || nodes <= 0) return counts;
  const int share = nodes / static_cast<int>(jobs.size());
  int left = nodes;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    counts[j] = largest_allowed(jobs[j], share);
    left -= counts[j];
  }
  for (std::size_t j = 0; j < jobs.size() && left > 0; ++j) {
    const int grown = largest_allowed(jobs[j], counts[j] + left);
    if (grown <= counts[j]) continue;
    left -= grown - counts[j];
    counts[j] = grown;
  }
  return counts;
}

AllocationResult share_equally(const AllocationProblem& problem) {
  AllocationResult result;
  std::vector<ShareLimits> limits;
  for (const ElasticJob& job : problem.jobs) {
    limits.push_back({job.min_nodes, job.max_nodes, job.allowed_sizes});
  }
  const std::vector<int> counts =
      equal_share_counts(limits, static_cast<int>(problem.nodes.size()));
  std::map<std::string, std::vector<std::string>> held;
  std::vector<std::string> idle;
  for (const NodeState& node : problem.nodes) {
    if (node.job) {
      held[*node.job].push_back(node.name);
    } else {
      idle.push_back(node.name);
    }
  }
  std::vector<std::vector<std::string>> kept(problem.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const ElasticJob& job = problem.jobs[j];
    std::vector<std::string>& nodes = kept[j];
    nodes = held[job.id];
    if (job.batch_host) {  // batch host first: a shrink keeps it
      const auto host = std::find(nodes.begin(), nodes.end(), *job.batch_host);
      if (host != nodes.end()) std::rotate(nodes.begin(), host, host + 1);
    }
    const auto count = static_cast<std::size_t>(counts[j]);
    // What a shrinking job gives up goes to the others, as in the allocator's answer: the
    // grow waits for the drain.
    for (std::size_t k = count; k < nodes.size(); ++k) idle.push_back(nodes[k]);
    if (nodes.size() > count) nodes.resize(count);
  }
  std::size_t next_idle = 0;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::vector<std::string>& nodes = kept[j];
    const auto count = static_cast<std::size_t>(counts[j]);
    while (nodes.size() < count && next_idle < idle.size()) nodes.push_back(idle[next_idle++]);
    result.allocation[problem.jobs[j].id] = std::move(nodes);
  }
  result.call_status = CallStatus::ok;
  result.message = "equal share: a heuristic, no model solved";
  return result;
}

}  // namespace gaptrain
