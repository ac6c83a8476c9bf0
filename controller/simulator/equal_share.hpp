// BFTrainer's heuristic baseline: the nodes are split equally among the jobs, the leftovers go
// to jobs in FCFS order. Pure; the simulator turns the counts into node sets.
#pragma once

#include <vector>

namespace gaptrain::sim {

struct ShareLimits {
  int min_nodes = 1;
  int max_nodes = 1;
};

// Node counts for `jobs` (in FCFS order) sharing `nodes` nodes. Every job gets the equal share
// clamped to its max; a job whose min exceeds the share gets nothing; nodes left over then go
// one job at a time in FCFS order, each job up to its max (a job given nothing yet takes them
// only when they reach its min). Every count is 0 or within [min, max]; the sum is <= nodes.
std::vector<int> equal_share_counts(const std::vector<ShareLimits>& jobs, int nodes);

}  // namespace gaptrain::sim
