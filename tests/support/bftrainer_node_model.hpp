// BFTrainer's node-level MILP (Liu et al., arXiv 2106.12091), written independently of
// controller/allocator so that it can serve as the reference the count-level model must match
// when no hole ends are known. It ignores hole ends entirely, as BFTrainer does.
//
// Model, per job j and node n:
//   x[j,n] binary (node n runs job j), each node in at most one job, n_j = sum_n x[j,n];
//   on_j binary with min_j*on_j <= n_j <= max_j*on_j;
//   grew_j, shrank_j binary with grew_j + shrank_j <= 1;
//   held by j now: x[j,n] >= 1 - shrank_j; not held by j: x[j,n] <= grew_j (no migration);
//   batch host kept: x[j,b_j] >= on_j;
//   one-hot u[j,k], k = 0..max_j: sum_k u = 1, n_j = sum_k k*u[j,k];
//   maximize sum_j H*sum_k v_j(k)*u[j,k] - sum_j (grew_j*up_j + shrank_j*down_j)*r_j
// with v_j(k) the objective's rate table (S_j(k), S_j(k)/S_j(1), or w_j*log2(1 + S_j(k)/S_j(1)))
// and r_j = v_j(c_j) when the job holds c_j >= min_j nodes now, else 0.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "allocator/allocation.hpp"

namespace gaptrain::test_support {

struct NodeModelResult {
  bool optimal = false;    // proven optimal within mip_gap
  double objective = 0.0;  // value of the incumbent (0 when there is none)
  std::map<std::string, std::vector<std::string>> allocation;  // every job, batch host first
  double solve_ms = 0.0;
  // Diagnostics for benchmarks.
  bool timed_out = false;     // the time limit stopped the search
  bool has_solution = false;  // an incumbent exists (always, unless the call failed early)
  double best_bound = 0.0;    // bound on the optimum: the objective when optimal, +inf unknown
  int rows = 0;
  int columns = 0;
  int binaries = 0;
};

// Solves BFTrainer's node-level model for `problem` (hole ends and solver options ignored;
// validate() must pass). The batch host of a job that holds nodes is its batch_host, else its
// held node with the longest hole end (unknown counts as longest), first in input order on ties.
// Throws std::runtime_error when GLPK fails outright.
NodeModelResult solve_bftrainer_node_model(const allocator::AllocationProblem& problem,
                                           double time_limit_s, double mip_gap);

// The rate v_j(k) of `job` on `nodes` nodes (0 for nodes <= 0) in `problem`'s objective,
// ignoring min_nodes, and the table of it for k = 0..max_nodes.
double rate(const allocator::AllocatableJob& job, const allocator::AllocationProblem& problem,
            int nodes);
std::vector<double> rate_table(const allocator::AllocatableJob& job,
                               const allocator::AllocationProblem& problem);

}  // namespace gaptrain::test_support
