#include "allocator/model/evaluate.hpp"

#include <unordered_map>

#include "allocator/model/job_value.hpp"

namespace gaptrain::allocator {

namespace {

struct Indexed {
  std::unordered_map<std::string, std::size_t> node;
  std::unordered_map<std::string, std::size_t> job;
};

Indexed index_names(const AllocationProblem& problem) {
  Indexed index;
  for (std::size_t n = 0; n < problem.nodes.size(); ++n) index.node[problem.nodes[n].name] = n;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) index.job[problem.jobs[j].id] = j;
  return index;
}

std::string type_text(const std::string& type) {
  return type.empty() ? "the default type" : "type \"" + type + "\"";
}

// Why giving `node` to `job` breaks the one-type rule (docs/allocator.md, "Node types"): a type
// the job has no curve for, or another type than the job's `first` node given (unless the job
// mixes types).
std::optional<std::string> type_infeasibility(const AllocatableJob& job,
                                              const AllocatableNode& node,
                                              const AllocatableNode*& first) {
  if (first == nullptr) {
    first = &node;
    if (curve_on(job, node.type) == nullptr) {
      return "job \"" + job.id + "\" given node \"" + node.name + "\" of " + type_text(node.type) +
             ", which it has no curve for";
    }
  } else if (first->type != node.type && !job.mix_types) {
    return "job \"" + job.id + "\" given nodes of two types (\"" + first->name + "\" and \"" +
           node.name + "\")";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> infeasibility(const AllocationProblem& problem,
                                         const NodeAllocation& allocation) {
  const Indexed index = index_names(problem);
  std::vector<int> owner(problem.nodes.size(), -1);
  for (const auto& [job_id, nodes] : allocation) {
    const auto j = index.job.find(job_id);
    if (j == index.job.end()) return "unknown job \"" + job_id + "\"";
    for (const std::string& name : nodes) {
      const auto n = index.node.find(name);
      if (n == index.node.end())
        return "job \"" + job_id + "\" given unknown node \"" + name + "\"";
      if (owner[n->second] >= 0) return "node \"" + name + "\" given twice";
      owner[n->second] = static_cast<int>(j->second);
    }
  }

  // The batch host is the given one, or the held node with the longest hole (see classify()).
  const ClassedProblem classed = classify(problem);
  // One pass over the nodes for all jobs: at 10,000 nodes x 1,000 jobs a pass per job took 20 ms.
  std::vector<int> given(problem.jobs.size(), 0);
  std::vector<bool> gained(problem.jobs.size(), false);
  std::vector<bool> lost(problem.jobs.size(), false);
  std::vector<const AllocatableNode*> first_given(problem.jobs.size(), nullptr);
  for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
    const int holder = classed.holder[n];
    const int taker = owner[n];
    if (taker >= 0) {
      if (std::optional<std::string> why =
              type_infeasibility(problem.jobs[static_cast<std::size_t>(taker)], problem.nodes[n],
                                 first_given[static_cast<std::size_t>(taker)])) {
        return why;
      }
      ++given[static_cast<std::size_t>(taker)];
    }
    if (taker >= 0 && taker != holder) gained[static_cast<std::size_t>(taker)] = true;
    if (holder >= 0 && taker != holder) lost[static_cast<std::size_t>(holder)] = true;
  }
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocatableJob& job = problem.jobs[j];
    const auto me = static_cast<int>(j);
    const auto who = [&job] { return "job \"" + job.id + "\""; };
    if (given[j] > 0 && (given[j] < job.min_nodes || given[j] > job.max_nodes)) {
      return who() + " given " + std::to_string(given[j]) + " nodes, outside {0} u [" +
             std::to_string(job.min_nodes) + ", " + std::to_string(job.max_nodes) + "]";
    }
    if (given[j] > 0 && !size_allowed(job, given[j])) {
      return who() + " given " + std::to_string(given[j]) + " nodes, not one of its allowed sizes";
    }
    if (gained[j] && lost[j]) return who() + " both gains and loses nodes";
    const int host = classed.batch_host_node[j];
    if (given[j] > 0 && host >= 0 && owner[static_cast<std::size_t>(host)] != me) {
      return who() + " loses its batch host \"" +
             problem.nodes[static_cast<std::size_t>(host)].name + "\"";
    }
  }
  return std::nullopt;
}

double evaluate(const AllocationProblem& problem, const NodeAllocation& allocation) {
  const ClassedProblem classed = classify(problem);
  const Indexed index = index_names(problem);
  std::vector<std::vector<int>> counts(problem.jobs.size(),
                                       std::vector<int>(classed.class_count(), 0));
  for (const auto& [job_id, nodes] : allocation) {
    const std::size_t j = index.job.at(job_id);
    for (const std::string& name : nodes) {
      const std::size_t n = index.node.at(name);
      ++counts[j][static_cast<std::size_t>(classed.classes.node_class[n])];
    }
  }
  return total_value(classed, counts);
}

}  // namespace gaptrain::allocator
