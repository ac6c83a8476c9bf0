// The shortfall search's lower bounds against enumeration: never above the least shortfall,
// and exact where their relaxation is (two scarce classes, the third unlimited and free).
#include "allocator/suffix_bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "allocator/usage_key.hpp"

namespace gaptrain {
namespace {

const auto kLater = std::chrono::steady_clock::now() + std::chrono::hours(1);

struct Instance {
  std::vector<std::vector<std::vector<int>>> counts;  // per job, per option: nodes per class
  std::vector<std::vector<double>> shortfall;         // per job, per option
  std::vector<int> capacity;
  std::vector<double> price;
};

int draw(std::mt19937_64& rng, int low, int high) {
  return low + static_cast<int>(rng() % static_cast<std::uint64_t>(high - low + 1));
}

// Two to six jobs of up to five options over `classes` classes; the last class is the largest.
Instance random_instance(std::mt19937_64& rng, std::size_t classes, bool last_unlimited_and_free) {
  Instance instance;
  const int jobs = draw(rng, 2, 6);
  for (std::size_t c = 0; c + 1 < classes; ++c) {
    instance.capacity.push_back(draw(rng, 0, 2 + 2 * jobs));
    instance.price.push_back(draw(rng, 0, 30) / 10.0);
  }
  // Larger than any other class, and than all the jobs can take when unlimited.
  instance.capacity.push_back(last_unlimited_and_free ? 3 * jobs + 20
                                                      : draw(rng, 2 * jobs + 3, 4 * jobs));
  instance.price.push_back(last_unlimited_and_free ? 0.0 : draw(rng, 0, 30) / 10.0);
  for (int j = 0; j < jobs; ++j) {
    const int options = draw(rng, 1, 5);
    instance.counts.emplace_back();
    instance.shortfall.emplace_back();
    for (int o = 0; o < options; ++o) {
      std::vector<int> counts;
      for (std::size_t c = 0; c < classes; ++c) counts.push_back(draw(rng, 0, 3));
      instance.counts.back().push_back(counts);
      instance.shortfall.back().push_back(draw(rng, 0, 100) / 10.0);
    }
  }
  return instance;
}

// The least total shortfall, unused nodes at their price, over every combination of options.
double least_by_enumeration(const Instance& instance) {
  const std::size_t jobs = instance.counts.size();
  std::vector<std::size_t> choice(jobs, 0);
  double least = std::numeric_limits<double>::infinity();
  while (true) {
    std::vector<int> left = instance.capacity;
    double total = 0.0;
    for (std::size_t j = 0; j < jobs; ++j) {
      total += instance.shortfall[j][choice[j]];
      for (std::size_t c = 0; c < left.size(); ++c) left[c] -= instance.counts[j][choice[j]][c];
    }
    bool fits = true;
    for (std::size_t c = 0; c < left.size(); ++c) {
      fits = fits && left[c] >= 0;
      total += instance.price[c] * left[c];
    }
    if (fits) least = std::min(least, total);
    std::size_t j = 0;
    for (; j < jobs; ++j) {
      if (++choice[j] < instance.counts[j].size()) break;
      choice[j] = 0;
    }
    if (j == jobs) return least;
  }
}

// The bound before any job is decided, over the options that fit (as the search lists them),
// or infinity when a job has none.
double root_bound(const Instance& instance, bool joint_tables = true) {
  const std::optional<KeyLayout> layout = KeyLayout::fit(instance.capacity);
  EXPECT_TRUE(layout.has_value());
  std::vector<std::vector<Candidate>> stages;
  for (std::size_t j = 0; j < instance.counts.size(); ++j) {
    stages.emplace_back();
    for (std::size_t o = 0; o < instance.counts[j].size(); ++o) {
      const std::vector<int>& counts = instance.counts[j][o];
      bool fits = true;
      for (std::size_t c = 0; c < counts.size(); ++c)
        fits = fits && counts[c] <= instance.capacity[c];
      if (!fits) continue;
      stages.back().push_back(
          {layout->pack(counts), instance.shortfall[j][o], static_cast<std::uint32_t>(o)});
    }
    if (stages.back().empty()) return std::numeric_limits<double>::infinity();
  }
  SuffixBounds bounds(stages, *layout, instance.capacity, instance.price, kLater);
  EXPECT_TRUE(bounds.complete());
  if (joint_tables) {
    EXPECT_TRUE(bounds.add_joint_tables(stages, instance.price, kLater));
  }
  return bounds.after(0, 0);
}

TEST(SuffixBounds, NeverAboveTheLeastShortfall) {
  std::mt19937_64 rng(20261125);
  for (int i = 0; i < 500; ++i) {
    const Instance instance = random_instance(rng, 2 + static_cast<std::size_t>(i % 4), false);
    const double least = least_by_enumeration(instance);
    if (least == std::numeric_limits<double>::infinity()) continue;
    EXPECT_LE(root_bound(instance), least + 1e-9) << "instance " << i;
  }
}

// With the largest class unlimited and free, only the two scarce classes bind, and the table
// over both is the problem itself: the bound is the least shortfall, to a float's precision. (The
// one-class, pooled and split bounds each fall short on many of these.)
TEST(SuffixBounds, ExactWhenOnlyTwoScarceClassesBind) {
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int i = 0; i < 500; ++i) {
    const Instance instance = random_instance(rng, 3, true);
    const double least = least_by_enumeration(instance);
    if (least == std::numeric_limits<double>::infinity()) {
      EXPECT_EQ(root_bound(instance), least) << "instance " << i;
      continue;
    }
    // (The pair tables hold floats rounded down.)
    EXPECT_NEAR(root_bound(instance), least, 1e-6 * std::max(1.0, least)) << "instance " << i;
    ++compared;
  }
  EXPECT_GT(compared, 200);
}

// Two classes, one scarce: no pair table, so what the joint tables add is the residue table's.
// Options take 1, 2 or 4 nodes of a class (as the measured curves' node counts do), so which
// remainders the jobs can fill together is arithmetic the one-class tables do not see.
TEST(SuffixBounds, ResiduesSeeWhatTheJobsCannotFillTogether) {
  std::mt19937_64 rng(11);
  int raised = 0;
  for (int i = 0; i < 2000; ++i) {
    Instance instance = random_instance(rng, 2, false);
    for (auto& job : instance.counts) {
      for (auto& counts : job) {
        for (int& count : counts) count = count == 3 ? 4 : count;
      }
    }
    const double least = least_by_enumeration(instance);
    if (least == std::numeric_limits<double>::infinity()) continue;
    const double with = root_bound(instance);
    EXPECT_LE(with, least + 1e-9) << "instance " << i;
    if (with > root_bound(instance, false) + 1e-6) ++raised;
  }
  EXPECT_GT(raised, 50) << raised;
}

}  // namespace
}  // namespace gaptrain
