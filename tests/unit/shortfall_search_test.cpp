// The shortfall search against enumeration of every allocation, and its ways of giving up.
#include "allocator/shortfall_search.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace gaptrain {
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

ShortfallProblem random_problem(std::mt19937_64& rng) {
  ShortfallProblem problem;
  const int classes = draw(rng, 1, 3);
  for (int c = 0; c < classes; ++c) {
    problem.capacity.push_back(draw(rng, 0, 6));
    problem.price.push_back(draw(rng, 0, 30) / 10.0);
  }
  const int jobs = draw(rng, 1, 4);
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

TEST(ShortfallSearch, FindsTheLeastShortfallOrProvesNoneWithinTheCutoff) {
  std::mt19937_64 rng(20261123);
  int found = 0;
  int none = 0;
  for (int instance = 0; instance < 600; ++instance) {
    const ShortfallProblem problem = random_problem(rng);
    const double least = least_by_enumeration(problem);
    const ShortfallResult result = least_shortfall(problem, kAmpleStates, kLater);
    if (least <= problem.cutoff) {
      ASSERT_EQ(result.outcome, Outcome::found) << "instance " << instance;
      EXPECT_NEAR(result.shortfall, least, 1e-9) << "instance " << instance;
      EXPECT_NEAR(total_shortfall(problem, result.choice), least, 1e-9) << "instance " << instance;
      ++found;
    } else {
      EXPECT_EQ(result.outcome, Outcome::none) << "instance " << instance << ": least " << least;
      ++none;
    }
  }
  // Both branches were exercised, each many times.
  EXPECT_GT(found, 100);
  EXPECT_GT(none, 100);
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

TEST(ShortfallSearch, GivesUpPastItsStateBudget) {
  const ShortfallProblem problem = many_states();
  EXPECT_EQ(least_shortfall(problem, kAmpleStates, kLater).outcome, Outcome::found);
  EXPECT_EQ(least_shortfall(problem, 50, kLater).outcome, Outcome::gave_up);
}

TEST(ShortfallSearch, GivesUpPastItsDeadline) {
  const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(least_shortfall(many_states(), kAmpleStates, past).outcome, Outcome::gave_up);
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
}  // namespace gaptrain
