// The shortfall search against enumeration of every allocation, and its ways of giving up.
#include "allocator/search/shortfall_search.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace gaptrain::allocator::shortfall_search_test {
namespace {

using Outcome = ShortfallResult::Outcome;

const auto kLater = std::chrono::steady_clock::now() + std::chrono::hours(1);
constexpr std::size_t kAmpleStates = 1'000'000;

// Total shortfall of one choice per job, or infinity when it overbooks a class.
double total_shortfall(const ShortfallProblem& problem, const std::vector<int>& choice) {
  std::vector<int> left = problem.capacity;
  double total = 0.0;
  for (std::size_t j = 0; j < choice.size(); ++j) {
    const auto o = static_cast<std::size_t>(choice[j]);
    total += problem.jobs[j].shortfall[o];
    for (std::size_t c = 0; c < left.size(); ++c) left[c] -= problem.jobs[j].counts[o][c];
  }
  for (std::size_t c = 0; c < left.size(); ++c) {
    if (left[c] < 0) return std::numeric_limits<double>::infinity();
    total += problem.price[c] * left[c];
  }
  return total;
}

// The least total shortfall over every combination of options (odometer enumeration).
double least_by_enumeration(const ShortfallProblem& problem) {
  std::vector<int> choice(problem.jobs.size(), 0);
  double least = std::numeric_limits<double>::infinity();
  while (true) {
    least = std::min(least, total_shortfall(problem, choice));
    std::size_t j = 0;
    for (; j < choice.size(); ++j) {
      if (++choice[j] < static_cast<int>(problem.jobs[j].counts.size())) break;
      choice[j] = 0;
    }
    if (j == choice.size()) return least;
  }
}

int draw(std::mt19937_64& rng, int low, int high) {
  return low + static_cast<int>(rng() % static_cast<std::uint64_t>(high - low + 1));
}

// Up to `most_jobs` jobs of up to four options each, over one to three classes.
ShortfallProblem random_problem(std::mt19937_64& rng, int most_jobs = 4) {
  ShortfallProblem problem;
  const int jobs = draw(rng, 1, most_jobs);
  const int classes = draw(rng, 1, 3);
  for (int c = 0; c < classes; ++c) {
    problem.capacity.push_back(draw(rng, 0, 2 + 2 * jobs));  // about what the jobs ask for
    problem.price.push_back(draw(rng, 0, 30) / 10.0);
  }
  for (int j = 0; j < jobs; ++j) {
    ShortfallOptions job;
    const int options = draw(rng, 1, 4);
    for (int o = 0; o < options; ++o) {
      std::vector<int> counts;
      for (int c = 0; c < classes; ++c) counts.push_back(draw(rng, 0, 3));
      job.counts.push_back(counts);
      job.shortfall.push_back(draw(rng, 0, 100) / 10.0);
    }
    problem.jobs.push_back(job);
  }
  problem.cutoff = draw(rng, 0, 300) / 10.0 + 0.05;  // never a tie with a total (tenths)
  return problem;
}

// Checks one search's answer against the enumerated least; returns the outcome.
Outcome check(const ShortfallProblem& problem, double least, const ShortfallResult& result,
              int instance) {
  constexpr double kRounding = 1e-9;
  EXPECT_LE(result.lower_bound, least + kRounding) << "instance " << instance;
  if (least > problem.cutoff) {
    EXPECT_NE(result.outcome, Outcome::found) << "instance " << instance << ": least " << least;
  }
  if (result.outcome == Outcome::found) {
    EXPECT_GE(result.shortfall, least - kRounding) << "instance " << instance;
    EXPECT_LE(result.shortfall, least + problem.tolerance + kRounding) << "instance " << instance;
    EXPECT_LE(result.shortfall, problem.cutoff) << "instance " << instance;
    EXPECT_LE(result.shortfall - result.lower_bound, problem.tolerance + kRounding)
        << "instance " << instance;
    EXPECT_NEAR(total_shortfall(problem, result.choice), result.shortfall, kRounding)
        << "instance " << instance;
  }
  if (result.outcome == Outcome::none) {
    EXPECT_GT(least, problem.cutoff) << "instance " << instance;
    EXPECT_GE(result.lower_bound, problem.cutoff) << "instance " << instance;
  }
  return result.outcome;
}

TEST(ShortfallSearch, FindsTheLeastShortfallOrProvesNoneWithinTheCutoff) {
  std::mt19937_64 rng(20261123);
  int found = 0;
  int none = 0;
  for (int instance = 0; instance < 1000; ++instance) {
    // Longer job lists reach the same usage along several paths (what the search remembers).
    const ShortfallProblem problem = random_problem(rng, instance % 2 == 0 ? 4 : 8);
    const double least = least_by_enumeration(problem);
    const ShortfallResult result = least_shortfall(problem, kAmpleStates, kLater);
    const Outcome outcome = check(problem, least, result, instance);
    if (least <= problem.cutoff) {
      ASSERT_EQ(outcome, Outcome::found) << "instance " << instance;
      EXPECT_NEAR(result.shortfall, least, 1e-9) << "instance " << instance;  // no tolerance
      ++found;
    } else {
      EXPECT_EQ(outcome, Outcome::none) << "instance " << instance << ": least " << least;
      ++none;
    }
  }
  // Both branches were exercised, each many times.
  EXPECT_GT(found, 100);
  EXPECT_GT(none, 100);
}

// With a tolerance the search may stop at any allocation that close to the least, and says how
// close it proved it to be; a lower bound it is given (any value up to the least) changes
// nothing of that.
TEST(ShortfallSearch, StaysWithinTheToleranceOfTheLeast) {
  std::mt19937_64 rng(20261124);
  int found = 0;
  int stopped_before_proof = 0;
  for (int instance = 0; instance < 600; ++instance) {
    ShortfallProblem problem = random_problem(rng);
    const double least = least_by_enumeration(problem);
    problem.tolerance = draw(rng, 0, 40) / 10.0;
    if (least <= problem.cutoff && draw(rng, 0, 1) == 1) {
      problem.lower_bound = least * draw(rng, 0, 10) / 10.0;
    }
    const ShortfallResult result = least_shortfall(problem, kAmpleStates, kLater);
    const Outcome outcome = check(problem, least, result, instance);
    if (least <= problem.cutoff) {
      ASSERT_EQ(outcome, Outcome::found) << "instance " << instance;
      ++found;
      if (result.shortfall > result.lower_bound + 1e-9) ++stopped_before_proof;
    } else {
      EXPECT_EQ(outcome, Outcome::none) << "instance " << instance;
    }
  }
  EXPECT_GT(found, 100);
  EXPECT_GT(stopped_before_proof, 20);  // the tolerance was used, not only allowed
}

// The dynamic programme the search falls back to, on its own: exact whatever the tolerance.
TEST(ShortfallSearch, DynamicProgrammeFindsTheLeastShortfall) {
  std::mt19937_64 rng(20261125);
  int found = 0;
  for (int instance = 0; instance < 1000; ++instance) {
    ShortfallProblem problem = random_problem(rng, instance % 2 == 0 ? 4 : 8);
    problem.tolerance = draw(rng, 0, 40) / 10.0;
    const double least = least_by_enumeration(problem);
    const ShortfallResult result = least_shortfall_by_states(problem, kAmpleStates, kLater);
    const Outcome outcome = check(problem, least, result, instance);
    if (least <= problem.cutoff) {
      ASSERT_EQ(outcome, Outcome::found) << "instance " << instance;
      EXPECT_NEAR(result.shortfall, least, 1e-9) << "instance " << instance;
      ++found;
    } else {
      EXPECT_EQ(outcome, Outcome::none) << "instance " << instance;
    }
  }
  EXPECT_GT(found, 100);
}

// Small budgets stop the depth-first search part way and the dynamic programme with it: an
// answer then is still right, and a search that gives up still proves its lower bound and
// hands over the best allocation it found. The least comes from an unbounded search (exact by
// the tests above), so the problems can be larger than enumeration allows.
TEST(ShortfallSearch, SmallBudgetsGiveUpOrAnswerCorrectly) {
  std::mt19937_64 rng(20261126);
  int gave_up = 0;
  int gave_up_with_an_allocation = 0;
  for (int instance = 0; instance < 3000; ++instance) {
    ShortfallProblem problem = random_problem(rng, 16);
    problem.cutoff *= 10.0;  // sixteen jobs' shortfalls add up
    const ShortfallResult exact = least_shortfall(problem, kAmpleStates, kLater);
    ASSERT_NE(exact.outcome, Outcome::gave_up);
    const double least =
        exact.outcome == Outcome::found ? exact.shortfall : std::numeric_limits<double>::infinity();
    problem.tolerance = draw(rng, 0, 20) / 10.0;
    const auto budget = static_cast<std::size_t>(draw(rng, 2, 12));
    const ShortfallResult result = least_shortfall(problem, budget, kLater);
    if (check(problem, least, result, instance) != Outcome::gave_up) continue;
    ++gave_up;
    if (result.choice.empty()) continue;
    ++gave_up_with_an_allocation;
    EXPECT_NEAR(total_shortfall(problem, result.choice), result.shortfall, 1e-9);
    EXPECT_LE(result.shortfall, problem.cutoff);
  }
  EXPECT_GT(gave_up, 50) << gave_up_with_an_allocation;
  EXPECT_GT(gave_up_with_an_allocation, 5) << gave_up;
}

// Found by random search: the depth-first search reaches one usage twice in a pass, first with
// more shortfall (and fails there), then with less, where the optimum lies. A search that
// remembered the usage alone, not the shortfall it failed with, ends at 19.5.
TEST(ShortfallSearch, SearchesAUsageAgainWhenReachedWithLessShortfall) {
  ShortfallProblem problem;
  problem.capacity = {9, 4};
  problem.price = {1.5, 1.3};
  problem.jobs = {
      {{{3, 2}, {0, 0}, {2, 2}, {1, 1}}, {5.4, 2.9, 6.7, 2.3}},
      {{{1, 0}, {0, 1}, {2, 0}, {2, 1}}, {3.0, 8.7, 5.6, 2.3}},
      {{{3, 3}, {2, 3}}, {8.6, 4.8}},
      {{{0, 0}, {1, 0}, {3, 0}, {3, 2}}, {3.6, 3.7, 7.0, 4.0}},
      {{{0, 0}, {3, 0}, {1, 0}}, {0.7, 4.9, 1.2}},
  };
  problem.cutoff = 22.95;
  ASSERT_NEAR(least_by_enumeration(problem), 19.4, 1e-9);
  const ShortfallResult result = least_shortfall(problem, kAmpleStates, kLater);
  ASSERT_EQ(result.outcome, Outcome::found);
  EXPECT_NEAR(result.shortfall, 19.4, 1e-9);
  EXPECT_EQ(result.states, 0U);  // the depth-first search answered, not the fallback
}

// Two classes, one job with a slack-free and a cheaper but wasteful option: the price of the
// nodes left unused decides.
TEST(ShortfallSearch, CountsUnusedNodesAtTheirPrice) {
  ShortfallProblem problem;
  problem.capacity = {4, 2};
  problem.price = {10.0, 1.0};
  problem.jobs = {{{{4, 0}, {1, 2}}, {3.0, 0.0}}};
  problem.cutoff = 100.0;
  const ShortfallResult result = least_shortfall(problem, kAmpleStates, kLater);
  ASSERT_EQ(result.outcome, Outcome::found);
  EXPECT_EQ(result.choice, std::vector<int>({0}));  // 3 + 2 * 1 beats 0 + 3 * 10
  EXPECT_DOUBLE_EQ(result.shortfall, 5.0);
}

ShortfallProblem many_states() {
  ShortfallProblem problem;
  problem.capacity = {40, 40};
  problem.price = {0.0, 0.0};
  for (int j = 0; j < 8; ++j) {
    ShortfallOptions job;
    for (int a = 0; a <= 4; ++a) {
      for (int b = 0; b <= 4; ++b) {
        job.counts.push_back({a, b});
        job.shortfall.push_back(0.0);
      }
    }
    problem.jobs.push_back(job);
  }
  problem.cutoff = 1.0;
  return problem;
}

TEST(ShortfallSearch, GivesUpPastItsBudget) {
  const ShortfallProblem problem = many_states();
  EXPECT_EQ(least_shortfall(problem, kAmpleStates, kLater).outcome, Outcome::found);
  // One remembered allocation: eight visits, one short of the first complete allocation.
  EXPECT_EQ(least_shortfall(problem, 1, kLater).outcome, Outcome::gave_up);
  EXPECT_EQ(least_shortfall_by_states(problem, kAmpleStates, kLater).outcome, Outcome::found);
  EXPECT_EQ(least_shortfall_by_states(problem, 50, kLater).outcome, Outcome::gave_up);
}

TEST(ShortfallSearch, GivesUpPastItsDeadline) {
  const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(least_shortfall(many_states(), kAmpleStates, past).outcome, Outcome::gave_up);
  EXPECT_EQ(least_shortfall_by_states(many_states(), kAmpleStates, past).outcome, Outcome::gave_up);
}

TEST(ShortfallSearch, GivesUpWhenUsageDoesNotPackIntoOneWord) {
  ShortfallProblem problem;
  problem.capacity = {1 << 20, 1 << 20, 1 << 20, 1 << 20};  // 4 x 22 bits
  problem.price = {0.0, 0.0, 0.0, 0.0};
  problem.jobs = {{{{0, 0, 0, 0}}, {0.0}}};
  problem.cutoff = 1.0;
  EXPECT_EQ(least_shortfall(problem, kAmpleStates, kLater).outcome, Outcome::gave_up);
}

}  // namespace
}  // namespace gaptrain::allocator::shortfall_search_test
