// What the allocator's exactness tests share (allocator_exactness_test.cpp,
// allocator_exactness_types_test.cpp): enumeration of every node-level allocation of a tiny
// instance, valued with evaluate() (the model's definition), and the checks of allocate()
// against it, with and without allowed sizes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "allocator/allocator.hpp"
#include "allocator/equal_share.hpp"
#include "allocator/model/evaluate.hpp"
#include "support/bftrainer_node_model.hpp"
#include "support/instances.hpp"

namespace gaptrain::allocator::exactness {

using namespace std::string_view_literals;

using test_support::CostSource;
using test_support::CurveSource;
using test_support::describe;
using test_support::distinct_availabilities;
using test_support::InstanceParams;
using test_support::random_problem;
using test_support::solve_bftrainer_node_model;

// 1e-6 relative, and 1e-6 absolute around zero.
inline double tolerance(double reference) {
  return 1e-6 * std::max(1.0, std::abs(reference));
}

// The solver's own gap must not eat the comparison's tolerance.
constexpr double kTightGap = 1e-9;

inline double availability(const AllocationProblem& problem, const AllocatableNode& node) {
  return node.hole_end_s ? std::min(*node.hole_end_s, problem.horizon_s) : problem.horizon_s;
}

// Puts a job's list in the allocator's order: its batch host first when it holds nodes now,
// else its longest-lived node first (first in input order on ties).
inline void order_like_allocator(const AllocationProblem& problem, const AllocatableJob& job,
                                 std::vector<std::size_t>& nodes) {
  if (nodes.empty()) return;
  auto first = nodes.begin();
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    if (job.batch_host) {
      if (problem.nodes[*it].name == *job.batch_host) first = it;
    } else if (availability(problem, problem.nodes[*it]) >
               availability(problem, problem.nodes[*first])) {
      first = it;
    }
  }
  std::rotate(nodes.begin(), first, first + 1);
}

inline NodeAllocation to_allocation(const AllocationProblem& problem,
                                    const std::vector<std::size_t>& owner) {
  NodeAllocation allocation;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::vector<std::size_t> mine;
    for (std::size_t n = 0; n < owner.size(); ++n) {
      if (owner[n] == j + 1) mine.push_back(n);
    }
    order_like_allocator(problem, problem.jobs[j], mine);
    std::vector<std::string>& names = allocation[problem.jobs[j].id];
    for (std::size_t n : mine) names.push_back(problem.nodes[n].name);
  }
  return allocation;
}

struct BruteForce {
  double best = -std::numeric_limits<double>::infinity();
  NodeAllocation argmax;
  int feasible = 0;
};

// Every assignment of each node to {none, job 1, ..., job J}, valued by `value` when
// infeasibility() accepts it.
template <typename Value>
BruteForce enumerate(const AllocationProblem& problem, Value value) {
  BruteForce result;
  std::vector<std::size_t> owner(problem.nodes.size(), 0);  // 0: none, j + 1: job j
  const std::size_t choices = problem.jobs.size() + 1;
  while (true) {
    const NodeAllocation allocation = to_allocation(problem, owner);
    if (!infeasibility(problem, allocation)) {
      ++result.feasible;
      const double v = value(allocation);
      if (v > result.best) {
        result.best = v;
        result.argmax = allocation;
      }
    }
    std::size_t n = 0;
    while (n < owner.size() && ++owner[n] == choices) owner[n++] = 0;
    if (n == owner.size()) break;
  }
  return result;
}

inline std::string dump(const NodeAllocation& allocation) {
  std::string out = "{";
  for (const auto& [job, nodes] : allocation) {
    out += " " + job + ": [";
    for (const std::string& node : nodes) out += node + (node == nodes.back() ? "" : " ");
    out += "]";
  }
  return out + " }";
}

inline std::string context(std::uint64_t seed, const AllocationProblem& problem) {
  return "seed " + std::to_string(seed) + "\ninstance: " + describe(problem);
}

// Tiny instances: 2-6 nodes, 1-3 jobs, max_nodes <= 4, random non-concave curves, random costs,
// all three objectives (fair at five exponents), some nodes held (also below min_nodes). The shape
// is drawn from the seed.
inline InstanceParams tiny_params(std::uint64_t seed, double hole_end_fraction) {
  std::mt19937_64 rng(seed * 7919U + 13U);
  InstanceParams params;
  params.seed = seed;
  params.nodes = 2 + static_cast<int>(rng() % 5U);
  params.jobs = 1 + static_cast<int>(rng() % 3U);
  params.max_nodes_cap = 4;
  params.min_nodes_cap = 3;
  params.held_fraction = std::vector<double>{0.0, 0.3, 0.6, 1.0}[rng() % 4U];
  params.new_job_fraction = 0.3;
  params.curves = CurveSource::random_small;
  params.costs = CostSource::random;
  params.objective =
      std::vector<Objective>{Objective::throughput, Objective::speedup, Objective::fair}[seed % 3U];
  // The fair objective's exponent from the seed too (no draw: the other draws stay as they were),
  // Pollux's -1, the proportional 0 and the ends of its range among them.
  params.fair_p = std::vector<double>{0.0, -1.0, 0.5, kMinFairP, kMaxFairP}[(seed / 3U) % 5U];
  params.horizon_s = std::vector<double>{10.0, 120.0, 600.0}[rng() % 3U];
  params.hole_end_fraction = hole_end_fraction;
  params.distinct_hole_ends = static_cast<int>(rng() % 4U);  // 0: continuous
  params.hole_end_min_s = 0.5;
  params.hole_end_max_s = 1.25 * params.horizon_s;
  params.solver.mip_gap = kTightGap;
  return params;
}

// Whether the optimum beats both "nothing moves" (when feasible) and "everything stops": the
// instances where the decision matters, counted so that the tests cannot pass on trivia.
inline bool decision_matters(const AllocationProblem& problem, double best) {
  NodeAllocation current;
  for (const AllocatableJob& job : problem.jobs) {
    std::vector<std::size_t> held;
    for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
      if (problem.nodes[n].job == job.id) held.push_back(n);
    }
    order_like_allocator(problem, job, held);
    for (std::size_t n : held) current[job.id].push_back(problem.nodes[n].name);
  }
  const double stay = infeasibility(problem, current) ? -std::numeric_limits<double>::infinity()
                                                      : evaluate(problem, current);
  const double stop = evaluate(problem, NodeAllocation{});
  return best > std::max(stay, stop) + tolerance(best);
}

// Checks allocate() against enumeration on one instance; counts it in `mattered` when the
// decision matters. The enumeration goes to `enumerated` when given.
inline void expect_matches_enumeration(std::uint64_t seed, const AllocationProblem& problem,
                                       int& mattered, BruteForce* enumerated = nullptr) {
  SCOPED_TRACE(context(seed, problem));
  const BruteForce brute = enumerate(
      problem, [&](const NodeAllocation& allocation) { return evaluate(problem, allocation); });
  if (enumerated != nullptr) *enumerated = brute;
  ASSERT_GT(brute.feasible, 0) << "giving no node to anyone is always feasible";
  mattered += decision_matters(problem, brute.best) ? 1 : 0;

  const AllocationResult result = allocate(problem);
  ASSERT_EQ(to_string(result.call_status), "ok"sv) << result.message;
  ASSERT_EQ(to_string(result.model_status), "optimal"sv);
  EXPECT_NEAR(result.objective, brute.best, tolerance(brute.best))
      << "allocate(): " << dump(result.allocation) << "\nbest enumerated: " << dump(brute.argmax);
  const std::optional<std::string> why = infeasibility(problem, result.allocation);
  EXPECT_FALSE(why) << *why << "\nallocate(): " << dump(result.allocation);
  if (!why) {
    EXPECT_NEAR(evaluate(problem, result.allocation), result.objective, tolerance(result.objective))
        << "allocate(): " << dump(result.allocation);
  }
  EXPECT_GE(result.best_bound, result.objective - tolerance(result.objective));
}

// --- Allowed sizes ----------------------------------------------------------------

using test_support::constrain_sizes;
using test_support::SizeRule;

// Whether every job got 0 nodes or one of its allowed sizes: checked apart from infeasibility(),
// which the enumeration relies on.
inline std::optional<std::string> disallowed_count(const AllocationProblem& problem,
                                                   const NodeAllocation& allocation) {
  for (const AllocatableJob& job : problem.jobs) {
    const auto found = allocation.find(job.id);
    const auto given = found == allocation.end() ? 0 : static_cast<int>(found->second.size());
    const bool listed = job.allowed_sizes.empty() ||
                        std::find(job.allowed_sizes.begin(), job.allowed_sizes.end(), given) !=
                            job.allowed_sizes.end();
    if (given != 0 && (!listed || given < job.min_nodes || given > job.max_nodes)) {
      return "job \"" + job.id + "\" given " + std::to_string(given) + " nodes";
    }
  }
  return std::nullopt;
}

// Tiny instances with room between sizes (max_nodes up to 6), every job's sizes by `rule`.
inline AllocationProblem tiny_sized_problem(std::uint64_t seed, double hole_end_fraction,
                                            SizeRule rule) {
  InstanceParams params = tiny_params(seed, hole_end_fraction);
  params.max_nodes_cap = 6;
  params.min_nodes_cap = 2;
  AllocationProblem problem = random_problem(params);
  constrain_sizes(problem, rule, seed);
  return problem;
}

// Jobs that hold a count they may not run at: they must move to an allowed one, or stop.
inline int jobs_holding_a_disallowed_count(const AllocationProblem& problem) {
  int count = 0;
  for (const AllocatableJob& job : problem.jobs) {
    const auto held = static_cast<int>(
        std::count_if(problem.nodes.begin(), problem.nodes.end(),
                      [&job](const AllocatableNode& node) { return node.job == job.id; }));
    count += held > 0 && !size_allowed(job, held) ? 1 : 0;
  }
  return count;
}

struct SizedCoverage {
  int mattered = 0;
  int held_disallowed = 0;
};

inline void expect_sized_matches_enumeration(std::uint64_t seed, const AllocationProblem& problem,
                                             SizedCoverage& coverage) {
  coverage.held_disallowed += jobs_holding_a_disallowed_count(problem);
  expect_matches_enumeration(seed, problem, coverage.mattered);
  SCOPED_TRACE(context(seed, problem));
  const AllocationResult result = allocate(problem);
  const std::optional<std::string> why = disallowed_count(problem, result.allocation);
  EXPECT_FALSE(why) << *why << "\nallocate(): " << dump(result.allocation);
}

inline const SizeRule kSizeRules[] = {SizeRule::powers_of_two, SizeRule::multiples,
                                      SizeRule::listed, SizeRule::mixed};

}  // namespace gaptrain::allocator::exactness
