// The shortfall search's lower bounds against enumeration: never above the least shortfall,
// and exact where their relaxation is (two scarce classes, the third unlimited and free; the
// residue table against its own relaxation).
#include "allocator/search/suffix_bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "allocator/search/residue_table.hpp"
#include "allocator/search/usage_key.hpp"

namespace gaptrain::allocator::suffix_bounds_test {
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

// Whether an option fits the capacities on its own (the search lists only those).
bool fits(const Instance& instance, const std::vector<int>& counts) {
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] > instance.capacity[c]) return false;
  }
  return true;
}

// Per job, its options that fit, in the search's terms (a job may be left with none).
std::vector<std::vector<Candidate>> stages_of(const Instance& instance, const KeyLayout& layout) {
  std::vector<std::vector<Candidate>> stages;
  for (std::size_t j = 0; j < instance.counts.size(); ++j) {
    stages.emplace_back();
    for (std::size_t o = 0; o < instance.counts[j].size(); ++o) {
      const std::vector<int>& counts = instance.counts[j][o];
      if (fits(instance, counts)) {
        stages.back().push_back(
            {layout.pack(counts), instance.shortfall[j][o], static_cast<std::uint32_t>(o)});
      }
    }
  }
  return stages;
}

// The bound before any job is decided, over the options that fit (as the search lists them),
// or infinity when a job has none.
double root_bound(const Instance& instance) {
  const std::optional<KeyLayout> layout = KeyLayout::fit(instance.capacity);
  EXPECT_TRUE(layout.has_value());
  const std::vector<std::vector<Candidate>> stages = stages_of(instance, *layout);
  for (const std::vector<Candidate>& stage : stages) {
    if (stage.empty()) return std::numeric_limits<double>::infinity();
  }
  SuffixBounds bounds(stages, *layout, instance.capacity, instance.price, kLater);
  EXPECT_TRUE(bounds.complete());
  EXPECT_TRUE(bounds.add_pair_tables(stages, instance.price, kLater));
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

// Every combination of one option per job (odometer), handed to `visit` as per-job indices.
template <typename Visit>
void for_each_choice(const Instance& instance, Visit visit) {
  std::vector<std::size_t> choice(instance.counts.size(), 0);
  while (true) {
    visit(choice);
    std::size_t j = 0;
    for (; j < choice.size(); ++j) {
      if (++choice[j] < instance.counts[j].size()) break;
      choice[j] = 0;
    }
    if (j == choice.size()) return;
  }
}

// The least of sum(shortfall) + cost(total counts per class) over every combination whose
// options each fit (as the search lists them).
template <typename Cost>
double least_over_choices(const Instance& instance, Cost cost) {
  double least = std::numeric_limits<double>::infinity();
  for_each_choice(instance, [&](const std::vector<std::size_t>& choice) {
    std::vector<int> used(instance.capacity.size(), 0);
    double total = 0.0;
    for (std::size_t j = 0; j < choice.size(); ++j) {
      const std::vector<int>& counts = instance.counts[j][choice[j]];
      if (!fits(instance, counts)) return;
      for (std::size_t c = 0; c < used.size(); ++c) used[c] += counts[c];
      total += instance.shortfall[j][choice[j]];
    }
    least = std::min(least, total + cost(used));
  });
  return least;
}

// Options of 0, 1, 2 or 4 nodes a class (as the measured curves' node counts go): which
// remainders the jobs can fill together is then arithmetic that one-class tables miss.
Instance power_of_two_instance(std::mt19937_64& rng) {
  Instance instance = random_instance(rng, 2 + static_cast<std::size_t>(rng() % 2), false);
  for (auto& job : instance.counts) {
    for (auto& counts : job) {
      for (int& count : counts) count = count == 3 ? 4 : count;
    }
  }
  return instance;
}

// The residue table is its relaxation, to a float's precision: capacities dropped, every
// class's final nodes left modulo 4 unused at its price. It never passes the least shortfall,
// and on many instances it sees more than the best one-class relaxation (one class's capacity
// binding, its unused nodes priced).
TEST(ResidueTable, IsTheModuloFourRelaxationAndSeesWhatOneClassCannot) {
  std::mt19937_64 rng(11);
  int beyond_one_class = 0;
  for (int i = 0; i < 1000; ++i) {
    const Instance instance = power_of_two_instance(rng);
    const double least = least_by_enumeration(instance);
    if (least == std::numeric_limits<double>::infinity()) continue;
    const std::optional<KeyLayout> layout = KeyLayout::fit(instance.capacity);
    ASSERT_TRUE(layout.has_value());
    const std::vector<std::vector<Candidate>> stages = stages_of(instance, *layout);
    const std::optional<ResidueTable> table =
        ResidueTable::build(stages, *layout, instance.capacity, instance.price, 4, kLater);
    ASSERT_TRUE(table.has_value());
    const double residues = table->after(0, 0);
    const double relaxation = least_over_choices(instance, [&](const std::vector<int>& used) {
      double unused = 0.0;
      for (std::size_t c = 0; c < used.size(); ++c) {
        unused += instance.price[c] * (((instance.capacity[c] - used[c]) % 4 + 4) % 4);
      }
      return unused;
    });
    EXPECT_NEAR(residues, relaxation, 1e-6 * std::max(1.0, relaxation)) << "instance " << i;
    EXPECT_LE(residues, least + 1e-9) << "instance " << i;
    double one_class = 0.0;
    for (std::size_t c = 0; c < instance.capacity.size(); ++c) {
      one_class =
          std::max(one_class, least_over_choices(instance, [&](const std::vector<int>& used) {
                     return used[c] > instance.capacity[c]
                                ? std::numeric_limits<double>::infinity()
                                : instance.price[c] * (instance.capacity[c] - used[c]);
                   }));
    }
    if (residues > one_class + 1e-6) ++beyond_one_class;
  }
  EXPECT_GT(beyond_one_class, 50) << beyond_one_class;
}

}  // namespace
}  // namespace gaptrain::allocator::suffix_bounds_test
