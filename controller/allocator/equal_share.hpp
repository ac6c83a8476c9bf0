// BFTrainer's heuristic baseline, the comparison policy `equal-share` of gaptrain simulate: the
// nodes are split equally among the jobs, the leftovers go to jobs in FCFS order. Pure; an
// alternative to allocate() for the same problem, with the same never-migrate rule.
#pragma once

#include <vector>

#include "allocator/allocation.hpp"

namespace gaptrain::allocator {

struct ShareLimits {
  int min_nodes = 1;
  int max_nodes = 1;
  std::vector<int> allowed_sizes = {};  // ascending; empty: every count in [min, max]
};

// Node counts for `jobs` (in FCFS order) sharing `nodes` nodes. Every job gets the largest
// allowed count at most the equal share; a job whose smallest allowed count exceeds the share
// gets nothing; nodes left over then go one job at a time in FCFS order, each job growing to the
// largest allowed count they reach (a job given nothing yet takes them only when they reach its
// smallest). Every count is 0 or allowed (within [min, max]); the sum is <= nodes.
std::vector<int> equal_share_counts(const std::vector<ShareLimits>& jobs, int nodes);

// `problem` shared equally (the counts above, jobs in the problem's order): a job keeps the
// nodes it holds (batch host first) up to its count and then takes idle nodes in the problem's
// order; hole ends, curves and costs are not looked at. Never migrates, never moves a batch
// host; a job whose count falls below what keeps its batch host gives up everything. With node
// types, each type's nodes are shared among the jobs on it: a job holding nodes is on their
// type, a new one on the type it has a curve for with the most nodes. Jobs that mix types share
// what the others leave: the typed jobs share each type's nodes but those a mixing job holds,
// then the mixing jobs share, as one pool, the nodes they hold and those left over, of any type
// (with one node type, a mixing job is a job on it).
AllocationResult share_equally(const AllocationProblem& problem);

}  // namespace gaptrain::allocator
