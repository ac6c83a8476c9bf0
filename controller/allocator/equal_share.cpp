#include "allocator/equal_share.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace gaptrain::allocator {

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

namespace {

// The node type each job is shared on: that of the nodes it holds, else, of the types it has a
// curve for, the one with the most nodes (the first of equals); nullopt when it has none.
std::vector<std::optional<std::string>> job_types(const AllocationProblem& problem) {
  std::map<std::string, int> nodes_of_type;
  std::map<std::string, std::string> held_type;  // job id -> type of its nodes
  for (const AllocatableNode& node : problem.nodes) {
    ++nodes_of_type[node.type];
    if (node.job) held_type.emplace(*node.job, node.type);
  }
  std::vector<std::optional<std::string>> types;
  for (const AllocatableJob& job : problem.jobs) {
    std::optional<std::string>& type = types.emplace_back();
    if (const auto held = held_type.find(job.id); held != held_type.end()) {
      type = held->second;
      continue;
    }
    int most = 0;
    for (const auto& [name, count] : nodes_of_type) {
      if (count > most && curve_on(job, name) != nullptr) {
        type = name;
        most = count;
      }
    }
  }
  return types;
}

// The equal share among all of `problem`'s jobs and nodes, hole ends and types not looked at.
AllocationResult share_one_pool(const AllocationProblem& problem) {
  AllocationResult result;
  std::vector<ShareLimits> limits;
  for (const AllocatableJob& job : problem.jobs) {
    limits.push_back({job.min_nodes, job.max_nodes, job.allowed_sizes});
  }
  const std::vector<int> counts =
      equal_share_counts(limits, static_cast<int>(problem.nodes.size()));
  std::map<std::string, std::vector<std::string>> held;
  std::vector<std::string> idle;
  for (const AllocatableNode& node : problem.nodes) {
    if (node.job) {
      held[*node.job].push_back(node.name);
    } else {
      idle.push_back(node.name);
    }
  }
  std::vector<std::vector<std::string>> kept(problem.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocatableJob& job = problem.jobs[j];
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

// The jobs that run on one type each: a type's nodes are shared among the jobs on it.
AllocationResult share_by_type(const AllocationProblem& problem) {
  const std::vector<std::optional<std::string>> types = job_types(problem);
  const bool one_pool = std::all_of(types.begin(), types.end(),
                                    [&types](const auto& type) { return type == types.front(); });
  if (one_pool &&
      std::all_of(problem.nodes.begin(), problem.nodes.end(), [&](const AllocatableNode& n) {
        return types.empty() || n.type == types.front();
      })) {
    return share_one_pool(problem);  // no node types (or one): the heuristic as BFTrainer has it
  }
  // A job runs on one node type (docs/allocator.md): each type's nodes are shared equally among
  // the jobs on it.
  AllocationResult result;
  std::map<std::string, AllocationProblem> pools;
  for (const AllocatableNode& node : problem.nodes) pools[node.type].nodes.push_back(node);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    result.allocation[problem.jobs[j].id] = {};
    if (types[j]) pools[*types[j]].jobs.push_back(problem.jobs[j]);
  }
  for (const auto& [type, pool] : pools) {
    for (auto& [id, nodes] : share_one_pool(pool).allocation) result.allocation[id] = nodes;
  }
  result.call_status = CallStatus::ok;
  result.message = "equal share: a heuristic, no model solved";
  return result;
}

}  // namespace

AllocationResult share_equally(const AllocationProblem& problem) {
  std::set<std::string> node_types;
  for (const AllocatableNode& node : problem.nodes) node_types.insert(node.type);
  std::set<std::string> mixing_ids;
  for (const AllocatableJob& job : problem.jobs) {
    if (job.mix_types) mixing_ids.insert(job.id);
  }
  if (mixing_ids.empty() || node_types.size() <= 1) return share_by_type(problem);
  // The typed jobs first, on each type's nodes that no mixing job holds (theirs stay with them);
  // the mixing jobs then share, as one pool, their own nodes and every node left over.
  AllocationProblem typed;
  AllocationProblem mixing;
  typed.horizon_s = mixing.horizon_s = problem.horizon_s;
  for (const AllocatableJob& job : problem.jobs) {
    (job.mix_types ? mixing : typed).jobs.push_back(job);
  }
  for (const AllocatableNode& node : problem.nodes) {
    const bool mixing_holds = node.job && mixing_ids.contains(*node.job);
    (mixing_holds ? mixing : typed).nodes.push_back(node);
  }
  AllocationResult result = share_by_type(typed);
  std::set<std::string> taken;
  for (const auto& [id, nodes] : result.allocation) taken.insert(nodes.begin(), nodes.end());
  for (const AllocatableNode& node : typed.nodes) {
    if (!taken.contains(node.name)) mixing.nodes.push_back(node);
  }
  for (auto& [id, nodes] : share_one_pool(mixing).allocation) result.allocation[id] = nodes;
  return result;
}

}  // namespace gaptrain::allocator
