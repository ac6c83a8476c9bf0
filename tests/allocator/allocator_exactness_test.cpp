// The count-level MILP must be exact: on tiny instances its optimum equals the best of every
// node-level allocation (enumerated and valued with evaluate(), the model's definition), and
// without hole ends it equals BFTrainer's node-level MILP. Instances are random but seeded; a
// failure prints the seed and the instance.
#include "allocator_exactness.hpp"

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

namespace gaptrain::allocator::allocator_exactness_test {
namespace {

using namespace exactness;

// Jobs with a batch range are valued at their goodput curve: allocate() on the problem
// equals the enumerated best of the problem with those curves put in, and that differs from the
// raw curves' (else the test would not see whether they were used).
TEST(AllocatorExactness, JobsWithABatchRangeAreValuedAtTheirGoodput) {
  int mattered = 0;
  int differs = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    AllocationProblem problem = random_problem(tiny_params(seed, 0.5));
    std::mt19937_64 rng(seed * 104729U);
    for (AllocatableJob& job : problem.jobs) {
      if (rng() % 4U == 0) continue;
      const int tuned = 8 * (1 + static_cast<int>(rng() % 4U));
      job.batch = BatchRange{tuned, tuned * (1 + static_cast<int>(rng() % 16U)), 0};
      if (rng() % 2U) job.noise_scale = static_cast<double>(rng() % 2000U);
    }
    const AllocationProblem valued = valued_by_goodput(problem);
    for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
      differs += problem.jobs[j].batch && !(valued.jobs[j].curve == problem.jobs[j].curve);
      EXPECT_FALSE(valued.jobs[j].batch);
    }
    SCOPED_TRACE(context(seed, problem));
    const BruteForce brute = enumerate(
        valued, [&](const NodeAllocation& allocation) { return evaluate(valued, allocation); });
    mattered += decision_matters(valued, brute.best) ? 1 : 0;
    const AllocationResult result = allocate(problem);
    ASSERT_EQ(to_string(result.model_status), "optimal"sv) << result.message;
    EXPECT_NEAR(result.objective, brute.best, tolerance(brute.best))
        << "allocate(): " << dump(result.allocation) << "\nbest enumerated: " << dump(brute.argmax);
  }
  EXPECT_GT(mattered, 30);
  EXPECT_GT(differs, 40);
}

TEST(AllocatorExactness, MatchesEnumerationWithoutHoleEnds) {
  int with_held_nodes = 0;
  int mattered = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const AllocationProblem problem = random_problem(tiny_params(seed, 0.0));
    with_held_nodes += std::any_of(problem.nodes.begin(), problem.nodes.end(),
                                   [](const AllocatableNode& n) { return n.job.has_value(); });
    expect_matches_enumeration(seed, problem, mattered);
  }
  EXPECT_GT(with_held_nodes, 60);
  EXPECT_GT(mattered, 60);
}

TEST(AllocatorExactness, MatchesEnumerationWithHoleEndsWithinClassLimit) {
  int multi_class = 0;
  int mattered = 0;
  for (std::uint64_t seed = 1001; seed <= 1150; ++seed) {
    AllocationProblem problem = random_problem(tiny_params(seed, seed % 2U == 0U ? 1.0 : 0.5));
    // No rounding: at least as many classes as distinct availabilities (sometimes exactly).
    problem.solver.max_hole_classes =
        distinct_availabilities(problem) + static_cast<int>(seed % 2U);
    multi_class += distinct_availabilities(problem) >= 3 ? 1 : 0;
    expect_matches_enumeration(seed, problem, mattered);
  }
  EXPECT_GT(multi_class, 30);
  EXPECT_GT(mattered, 80);
}

TEST(AllocatorExactness, MatchesEnumerationWithMoreHoleEndsThanClasses) {
  int rounded = 0;
  int mattered = 0;
  for (std::uint64_t seed = 2001; seed <= 2150; ++seed) {
    InstanceParams params = tiny_params(seed, 0.8);
    params.distinct_hole_ends = 0;  // continuous: every known hole end is its own value
    AllocationProblem problem = random_problem(params);
    const int distinct = distinct_availabilities(problem);
    if (distinct < 2) continue;  // nothing to round
    // Fewer classes than availabilities, 1 (hole ends ignored) included.
    problem.solver.max_hole_classes =
        1 + static_cast<int>(seed % static_cast<std::uint64_t>(distinct - 1));
    ++rounded;
    expect_matches_enumeration(seed, problem, mattered);
  }
  EXPECT_GT(rounded, 100);
  EXPECT_GT(mattered, 70);
}

// With no option list allowed, the allocator solves everything with the compact count-level
// MILP (its fallback when too many options survive): that model must be exact on its own.
TEST(AllocatorExactness, CompactModelAloneMatchesEnumeration) {
  int mattered = 0;
  for (std::uint64_t seed = 3001; seed <= 3100; ++seed) {
    AllocationProblem problem = random_problem(tiny_params(seed, seed % 2U == 0U ? 0.0 : 0.6));
    problem.solver.max_hole_classes = std::max(1, distinct_availabilities(problem));
    problem.solver.max_core_options = 0;
    expect_matches_enumeration(seed, problem, mattered);
  }
  EXPECT_GT(mattered, 50);
}

TEST(AllocatorExactness, AllowedSizesMatchEnumerationWithoutHoleEnds) {
  SizedCoverage coverage;
  for (std::uint64_t seed = 7001; seed <= 7160; ++seed) {
    const SizeRule rule = kSizeRules[seed % 4U];
    expect_sized_matches_enumeration(seed, tiny_sized_problem(seed, 0.0, rule), coverage);
  }
  EXPECT_GT(coverage.mattered, 60);
  EXPECT_GT(coverage.held_disallowed, 40);
}

TEST(AllocatorExactness, AllowedSizesMatchEnumerationWithHoleEnds) {
  SizedCoverage coverage;
  int rounded = 0;
  for (std::uint64_t seed = 7201; seed <= 7400; ++seed) {
    AllocationProblem problem =
        tiny_sized_problem(seed, seed % 2U == 0U ? 1.0 : 0.6, kSizeRules[seed % 4U]);
    // Every availability its own class, or (every third instance) fewer classes than
    // availabilities, as the unconstrained tests above do.
    const int distinct = distinct_availabilities(problem);
    problem.solver.max_hole_classes = std::max(1, distinct);
    if (seed % 3U == 0U && distinct >= 2) {
      problem.solver.max_hole_classes =
          1 + static_cast<int>(seed % static_cast<std::uint64_t>(distinct - 1));
      ++rounded;
    }
    expect_sized_matches_enumeration(seed, problem, coverage);
  }
  EXPECT_GT(coverage.mattered, 80);
  EXPECT_GT(coverage.held_disallowed, 40);
  EXPECT_GT(rounded, 30);
}

// The compact count-level MILP (the fallback) restricts totals with its own rows: exact alone.
TEST(AllocatorExactness, AllowedSizesCompactModelAloneMatchesEnumeration) {
  SizedCoverage coverage;
  for (std::uint64_t seed = 7501; seed <= 7620; ++seed) {
    AllocationProblem problem =
        tiny_sized_problem(seed, seed % 2U == 0U ? 0.0 : 0.6, kSizeRules[seed % 4U]);
    problem.solver.max_hole_classes = std::max(1, distinct_availabilities(problem));
    problem.solver.max_core_options = 0;
    expect_sized_matches_enumeration(seed, problem, coverage);
  }
  EXPECT_GT(coverage.mattered, 50);
  EXPECT_GT(coverage.held_disallowed, 30);
}

// The issue's example: min 2, max 8, curve measured at 2, 4 and 8 nodes, sizes 2, 4, 8. Whatever
// the cluster (2 to 12 nodes, held counts 3, 5, 6 and 7 among them), no job gets 3, 5, 6 or 7.
TEST(AllocatorExactness, TheIssueExampleNeverGetsAnInBetweenCount) {
  std::mt19937_64 rng(33);
  int mattered = 0;
  for (int round = 0; round < 60; ++round) {
    AllocationProblem problem;
    problem.objective = round % 2 == 0 ? Objective::throughput : Objective::speedup;
    const int node_count = 2 + static_cast<int>(rng() % 11U);
    const int job_count = 1 + static_cast<int>(rng() % 3U);
    for (int j = 0; j < job_count; ++j) {
      AllocatableJob job;
      job.id = "j" + std::to_string(j);
      job.min_nodes = 2;
      job.max_nodes = 8;
      job.allowed_sizes = {2, 4, 8};
      job.curve = ScalingCurve({{2, 190.0}, {4, 370.0 + 10.0 * j}, {8, 700.0}});
      job.up_cost_s = 18.0;
      job.down_cost_s = 12.0;
      problem.jobs.push_back(job);
    }
    // The first job holds an in-between count where the nodes allow it.
    const int held = std::min(node_count, std::vector<int>{3, 5, 6, 7}[rng() % 4U]);
    for (int n = 0; n < node_count; ++n) {
      AllocatableNode node{"n" + std::to_string(n), {}, {}};
      if (n < held) node.job = "j0";
      if (rng() % 3U == 0U) node.hole_end_s = 30.0 + static_cast<double>(rng() % 900U);
      problem.nodes.push_back(node);
    }
    SCOPED_TRACE("round " + std::to_string(round) +
                 "\ninstance: " + test_support::describe(problem));
    const auto expect_allowed = [](const NodeAllocation& allocation, std::string_view policy) {
      for (const auto& [job, nodes] : allocation) {
        const std::size_t n = nodes.size();
        EXPECT_TRUE(n == 0 || n == 2 || n == 4 || n == 8) << policy << " gave " << job << " " << n;
      }
    };
    const AllocationResult result = allocate(problem);
    ASSERT_EQ(to_string(result.model_status), "optimal"sv) << result.message;
    expect_allowed(result.allocation, "allocate()");
    expect_allowed(share_equally(problem).allocation, "share_equally()");
    if (node_count <= 7)
      expect_matches_enumeration(static_cast<std::uint64_t>(round), problem, mattered);
  }
  EXPECT_GT(mattered, 10);
}

// BFTrainer's objective written out once more, from its paper, to check the reference model
// itself: H * v(|A_j|) - (grew * up + shrank * down) * r_j.
double bftrainer_value(const AllocationProblem& problem, const NodeAllocation& allocation) {
  double total = 0.0;
  for (const AllocatableJob& job : problem.jobs) {
    std::vector<std::string> held;
    for (const AllocatableNode& node : problem.nodes) {
      if (node.job == job.id) held.push_back(node.name);
    }
    const auto found = allocation.find(job.id);
    const std::vector<std::string> given =
        found == allocation.end() ? std::vector<std::string>{} : found->second;
    const auto count = [](const std::vector<std::string>& v) { return static_cast<int>(v.size()); };
    const double r =
        count(held) >= job.min_nodes ? test_support::rate(job, problem, count(held)) : 0.0;
    const bool keeps_all = std::all_of(held.begin(), held.end(), [&](const std::string& n) {
      return std::find(given.begin(), given.end(), n) != given.end();
    });
    const bool grew = keeps_all && given.size() > held.size();
    const bool shrank = given.size() < held.size();
    total += problem.horizon_s * test_support::rate(job, problem, count(given)) -
             (grew ? job.up_cost_s * r : 0.0) - (shrank ? job.down_cost_s * r : 0.0);
  }
  return total;
}

TEST(BFTrainerNodeModel, MatchesEnumerationOfBFTrainerObjective) {
  for (std::uint64_t seed = 3001; seed <= 3100; ++seed) {
    const AllocationProblem problem = random_problem(tiny_params(seed, 0.0));
    SCOPED_TRACE(context(seed, problem));
    const BruteForce brute = enumerate(problem, [&](const NodeAllocation& allocation) {
      return bftrainer_value(problem, allocation);
    });
    const auto node = solve_bftrainer_node_model(problem, 60.0, 0.0);
    ASSERT_TRUE(node.optimal);
    EXPECT_NEAR(node.objective, brute.best, tolerance(brute.best))
        << "node model: " << dump(node.allocation) << "\nbest enumerated: " << dump(brute.argmax);
    EXPECT_FALSE(infeasibility(problem, node.allocation)) << dump(node.allocation);
  }
}

// Small instances with no hole ends: 2-12 nodes, 1-4 jobs, max_nodes <= 8.
InstanceParams small_params(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 104729U + 7U);
  InstanceParams params;
  params.seed = seed;
  params.nodes = 2 + static_cast<int>(rng() % 11U);
  params.jobs = 1 + static_cast<int>(rng() % 4U);
  params.max_nodes_cap = 8;
  params.min_nodes_cap = 4;
  params.held_fraction = std::vector<double>{0.0, 0.25, 0.5, 0.8}[rng() % 4U];
  params.new_job_fraction = 0.25;
  params.curves = rng() % 2U == 0U ? CurveSource::real : CurveSource::random_small;
  params.costs = rng() % 2U == 0U ? CostSource::bftrainer : CostSource::random;
  params.objective = seed % 2U == 0U ? Objective::throughput : Objective::speedup;
  params.horizon_s = std::vector<double>{10.0, 60.0, 600.0}[rng() % 3U];
  params.solver.mip_gap = kTightGap;
  return params;
}

void expect_matches_node_model(std::uint64_t seed, const AllocationProblem& problem,
                               double node_time_limit_s, double node_gap = kTightGap) {
  SCOPED_TRACE(context(seed, problem));
  const auto node = solve_bftrainer_node_model(problem, node_time_limit_s, node_gap);
  ASSERT_TRUE(node.has_solution);
  const AllocationResult result = allocate(problem);
  ASSERT_EQ(to_string(result.call_status), "ok"sv) << result.message;
  ASSERT_EQ(to_string(result.model_status), "optimal"sv);
  if (node.optimal) {
    EXPECT_NEAR(result.objective, node.objective, tolerance(node.objective))
        << "allocate(): " << dump(result.allocation) << "\nnode model: " << dump(node.allocation);
  } else {
    // The reference ran out of time (a slow machine): the optimum still lies between its
    // incumbent and its bound.
    EXPECT_GE(result.objective, node.objective - tolerance(node.objective))
        << "allocate(): " << dump(result.allocation) << "\nnode model: " << dump(node.allocation);
    EXPECT_LE(result.objective, node.best_bound + tolerance(node.best_bound));
  }
  // Both answers are feasible for the model's rules, and with one class evaluate() is
  // BFTrainer's objective, so it values the reference's answer at the reference's objective.
  const std::optional<std::string> why = infeasibility(problem, result.allocation);
  EXPECT_FALSE(why) << *why << "\nallocate(): " << dump(result.allocation);
  EXPECT_FALSE(infeasibility(problem, node.allocation)) << dump(node.allocation);
  EXPECT_NEAR(evaluate(problem, node.allocation), node.objective, tolerance(node.objective))
      << "node model: " << dump(node.allocation);
}

TEST(AllocatorExactness, MatchesBFTrainerNodeModelWithoutHoleEnds) {
  for (std::uint64_t seed = 4001; seed <= 4240; ++seed) {
    expect_matches_node_model(seed, random_problem(small_params(seed)), 60.0);
  }
}

TEST(AllocatorExactness, MatchesBFTrainerNodeModelWhenOneClassIgnoresHoleEnds) {
  for (std::uint64_t seed = 5001; seed <= 5060; ++seed) {
    InstanceParams params = small_params(seed);
    params.hole_end_fraction = 0.6;
    params.distinct_hole_ends = static_cast<int>(seed % 4U);
    params.hole_end_max_s = 1.5 * params.horizon_s;
    params.solver.max_hole_classes = 1;
    expect_matches_node_model(seed, random_problem(params), 60.0);
  }
}

// Real curves at a size BFTrainer ran at: 100 nodes, 10 jobs, half the nodes held, its
// Tfwd = 10 s. (With a 600 s horizon GLPK needs minutes on the node model.)
TEST(AllocatorExactness, MatchesBFTrainerNodeModelOnMediumInstances) {
  for (std::uint64_t seed = 6001; seed <= 6004; ++seed) {
    InstanceParams params;
    params.seed = seed;
    params.nodes = 100;
    params.jobs = 10;
    params.held_fraction = 0.5;
    params.max_nodes_cap = 32;
    params.curves = CurveSource::real;
    params.costs = CostSource::bftrainer;
    params.objective = seed % 2U == 0U ? Objective::throughput : Objective::speedup;
    params.horizon_s = 10.0;
    params.solver.mip_gap = kTightGap;
    expect_matches_node_model(seed, random_problem(params), 120.0, 1e-7);
  }
}

// Listing every count in [min, max] is the same as listing none: same optimum, on instances big
// enough that the enumeration could not check them.
TEST(AllocatorExactness, ListingEveryCountChangesNothing) {
  for (std::uint64_t seed = 7701; seed <= 7740; ++seed) {
    const AllocationProblem plain = random_problem(small_params(seed));
    AllocationProblem listed = plain;
    for (AllocatableJob& job : listed.jobs) {
      for (int k = job.min_nodes; k <= job.max_nodes; ++k) job.allowed_sizes.push_back(k);
    }
    SCOPED_TRACE(context(seed, listed));
    const AllocationResult a = allocate(plain);
    const AllocationResult b = allocate(listed);
    ASSERT_EQ(to_string(b.model_status), "optimal"sv) << b.message;
    EXPECT_NEAR(a.objective, b.objective, tolerance(a.objective));
  }
}

}  // namespace
}  // namespace gaptrain::allocator::allocator_exactness_test
