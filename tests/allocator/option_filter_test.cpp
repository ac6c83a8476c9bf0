// drop_dominated against a plain reference of its rule, on both of its paths (counts packed in one
// word, and counts compared one by one when they do not fit).
#include "allocator/decompose/option_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace gaptrain::allocator::option_filter_test {
namespace {

// The rule as documented, written the slow way.
JobOptions reference_filter(const JobOptions& options) {
  std::vector<std::size_t> order(options.counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return options.value[a] > options.value[b];
  });
  JobOptions kept;
  for (std::size_t o : order) {
    int by = -1;
    for (std::size_t k = 0; k < kept.counts.size() && by < 0; ++k) {
      bool no_more = true;
      for (std::size_t c = 0; c < options.counts[o].size(); ++c) {
        no_more = no_more && kept.counts[k][c] <= options.counts[o][c];
      }
      if (no_more) by = static_cast<int>(k);
    }
    if (by < 0) {
      by = static_cast<int>(kept.counts.size());
      kept.counts.push_back(options.counts[o]);
      kept.value.push_back(options.value[o]);
    }
    if (static_cast<int>(o) == options.start) kept.start = by;
  }
  return kept;
}

JobOptions random_options(std::mt19937_64& rng, std::size_t classes, int most_nodes) {
  JobOptions options;
  const int n = std::uniform_int_distribution<int>(0, 60)(rng);
  std::uniform_int_distribution<int> nodes(0, most_nodes);
  std::uniform_int_distribution<int> value(0, 12);  // few values: many ties
  for (int o = 0; o < n; ++o) {
    std::vector<int> counts(classes);
    for (int& c : counts) c = nodes(rng);
    options.counts.push_back(counts);
    options.value.push_back(value(rng));
  }
  options.start = n == 0 ? -1 : std::uniform_int_distribution<int>(-1, n - 1)(rng);
  return options;
}

void expect_same(const JobOptions& got, const JobOptions& want) {
  EXPECT_EQ(got.counts, want.counts);
  EXPECT_EQ(got.value, want.value);
  EXPECT_EQ(got.start, want.start);
}

TEST(OptionFilter, KeepsTheMostValuableAndDropsWhatUsesAtLeastItsNodes) {
  JobOptions options;
  options.counts = {{3, 1}, {2, 0}, {1, 0}, {0, 2}};
  options.value = {5.0, 10.0, 10.0, 7.0};
  options.start = 0;  // {3, 1} is dominated by {2, 0}, worth more
  drop_dominated(options);
  // {1, 0} stays beside {2, 0} though it uses fewer nodes for the same value: it comes later.
  EXPECT_EQ(options.counts, (std::vector<std::vector<int>>{{2, 0}, {1, 0}, {0, 2}}));
  EXPECT_EQ(options.value, (std::vector<double>{10.0, 10.0, 7.0}));
  EXPECT_EQ(options.start, 0);
}

TEST(OptionFilter, PackedCountsFilterAsTheRuleSays) {
  std::mt19937_64 rng(7);
  int dropped = 0;
  for (int round = 0; round < 400; ++round) {
    const auto classes = static_cast<std::size_t>(1 + round % 4);
    // Small counts (many dominations) and counts at the top of a 16-bit field.
    const int most = round % 3 == 0 ? 0x7fff : 6;
    JobOptions options = random_options(rng, classes, most);
    const JobOptions want = reference_filter(options);
    dropped += static_cast<int>(options.counts.size() - want.counts.size());
    drop_dominated(options);
    expect_same(options, want);
  }
  EXPECT_GT(dropped, 1000);  // the rule was exercised, not only the keeping
}

TEST(OptionFilter, CountsThatDoNotFitAWordFilterAsTheRuleSays) {
  std::mt19937_64 rng(11);
  for (std::size_t round = 0; round < 300; ++round) {
    // Five or six classes, or a count past 32,767 in one of four.
    const bool wide = round % 4 < 2;
    JobOptions options = random_options(rng, wide ? 5 + round % 2 : 4, 6);
    if (!wide && !options.counts.empty()) {
      options.counts.back()[round % 4] = 0x8000 + static_cast<int>(round);
    }
    const JobOptions want = reference_filter(options);
    drop_dominated(options);
    expect_same(options, want);
  }
}

}  // namespace
}  // namespace gaptrain::allocator::option_filter_test
