// The count-level view of an allocation problem, and the value of one job's node counts in it.
// Shared by evaluate() (node-level check), the MILP (constants and solution extraction) and the
// node assignment, so every part uses the same numbers.
#pragma once

#include <algorithm>
#include <iterator>
#include <span>
#include <vector>

#include "allocator/allocation.hpp"
#include "allocator/model/hole_classes.hpp"

namespace gaptrain::allocator {

// A job on one node type, or on every type for a job that mixes them: its rates
// there.
struct JobOnType {
  static constexpr int kEveryType = -1;  // `type` of a job that mixes types
  int type = 0;                          // index into HoleClasses::type_name, or kEveryType
  // v_j(k) on this type for k = 0 .. max(max_nodes, held_total), objective units/s. For a job
  // with allowed sizes, the rate of the largest allowed size <= k (0 below the smallest): a job
  // left with k nodes when holes end runs on as many as it can use, as below its minimum it runs
  // on none.
  std::vector<double> rate;
  double reclaim_rate = 0.0;  // rho_j: r_j if > 0, else v_j(min_j) on this type

  // Whether the job may use the classes of node type `class_type` here.
  bool covers(int class_type) const { return type == kEveryType || type == class_type; }
};

struct ClassedJob {
  int min_nodes = 1;       // the smallest allowed size when the job names sizes
  int max_nodes = 1;       // at most the problem's node count (may then fall below min_nodes)
  std::vector<int> sizes;  // AllocatableJob::allowed_sizes, ascending; empty: every count
  int held_total = 0;      // c_j: nodes held now
  std::vector<int> held;   // h_{j,c}: held nodes per class
  int batch_class = -1;    // class of the batch host; -1 when the job holds no nodes
  // The node types the job may run on, ascending by type: those present that it has a curve
  // for; for a job holding nodes, their type alone (it grows or shrinks there: moving to another
  // type would be a migration, rule 3). Every option uses the classes of one of them only.
  // A job that mixes types (AllocatableJob::mix_types) has one entry, kEveryType, whose options may
  // use the classes of every type, held or not.
  std::vector<JobOnType> on;
  double current_rate = 0.0;  // r_j: v_j(c_j) on the held type when c_j >= min_j, else 0
  double up_cost_s = 0.0;
  double down_cost_s = 0.0;

  // Whether the job may be given `nodes` nodes (> 0): within [min, max] and an allowed size.
  // Every option the allocator considers passes this one test.
  bool allowed(int nodes) const {
    if (nodes < min_nodes || nodes > max_nodes) return false;
    return sizes.empty() || std::binary_search(sizes.begin(), sizes.end(), nodes);
  }
  // The smallest count >= `nodes` the job may be given, or a count above max_nodes when none.
  int allowed_at_least(int nodes) const {
    const int from = std::max(nodes, min_nodes);
    if (sizes.empty() || from > max_nodes) return from;
    const auto it = std::lower_bound(sizes.begin(), sizes.end(), from);
    return it == sizes.end() ? max_nodes + 1 : *it;
  }
  // The largest count <= `nodes` the job may be given, or a count below min_nodes when none.
  int allowed_at_most(int nodes) const {
    const int to = std::min(nodes, max_nodes);
    if (sizes.empty() || to < min_nodes) return to;
    const auto it = std::upper_bound(sizes.begin(), sizes.end(), to);
    return it == sizes.begin() ? min_nodes - 1 : *std::prev(it);
  }

  // Whether keeping exactly its nodes is a feasible option (an allowed count): a job holding a
  // count it may not run at can only move to an allowed one, or stop.
  bool can_stay() const { return held_total > 0 && allowed(held_total); }
  // Whether its held nodes fit under per-class limits.
  bool held_fits(std::span<const int> limit) const {
    return std::equal(held.begin(), held.end(), limit.begin(),
                      [](int mine, int cap) { return mine <= cap; });
  }

  // v-hat on type `t`: no progress below the job's minimum.
  double running_rate(const JobOnType& t, int nodes) const {
    return nodes >= min_nodes ? t.rate[static_cast<std::size_t>(nodes)] : 0.0;
  }
  // The job on node type `type`, or nullptr when it may not run there.
  const JobOnType* on_type(int type) const {
    for (const JobOnType& t : on) {
      if (t.covers(type)) return &t;
    }
    return nullptr;
  }
};

struct ClassedProblem {
  double horizon_s = 0.0;
  HoleClasses classes;
  std::vector<ClassedJob> jobs;      // same order as problem.jobs
  std::vector<int> batch_host_node;  // index into problem.nodes, -1 when none
  std::vector<int> holder;           // per node: index of the job holding it, -1 when idle

  std::size_t class_count() const { return classes.end_s.size(); }
  // The node type of a job's counts (that of its first class with nodes), or -1 for none.
  // (A mixing job's counts may span types: any of them finds its kEveryType entry.)
  int type_of(std::span<const int> counts) const {
    for (std::size_t c = 0; c < counts.size(); ++c) {
      if (counts[c] > 0) return classes.type[c];
    }
    return -1;
  }
  // Whether class c is the last of the classes that end when it does (several types may share
  // an availability). Nodes that leave together are one shrink for a job that mixes types, and
  // the forced-shrink charges below are paid once per such group.
  bool ends_group(std::size_t c) const {
    return c + 1 >= classes.end_s.size() || classes.end_s[c + 1] != classes.end_s[c];
  }
  double segment_length(std::size_t s) const {
    return classes.end_s[s] - (s == 0 ? 0.0 : classes.end_s[s - 1]);
  }
};

// Expects a validated problem. A job's max_nodes is clamped to the problem's node count.
ClassedProblem classify(const AllocationProblem& problem);

// V_j of docs/allocator.md for a job given `counts[c]` nodes of each class. The counts must be
// feasible for the job (rules 2-4, all of one of its types unless it mixes types: then its
// curve at their total, whatever the types); the decided-rescale costs follow
// from comparing them with what the job holds. Counts on a type the job cannot run on are worth
// -infinity (never chosen).
double job_value(const ClassedProblem& problem, std::size_t job, std::span<const int> counts);

// Sum of job_value over all jobs: the objective of a count-level allocation.
double total_value(const ClassedProblem& problem, const std::vector<std::vector<int>>& counts);

// The job's last class: its batch host's class when it holds nodes now, else the highest class
// it is given (-1 when given none).
int last_class(const ClassedJob& job, std::span<const int> counts);

}  // namespace gaptrain::allocator
