#include "gaptrain/node_sizes.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gaptrain/bounds.hpp"

namespace gaptrain::node_sizes_test {
namespace {

NodeSizes parsed(const std::string& text) {
  const std::optional<NodeSizes> sizes = node_sizes_from_text(text);
  EXPECT_TRUE(sizes.has_value()) << text;
  EXPECT_FALSE(sizes && node_sizes_problem(*sizes)) << text << ": " << *node_sizes_problem(*sizes);
  return sizes.value_or(NodeSizes{});
}

TEST(NodeSizes, ARangeAllowsEveryCount) {
  EXPECT_EQ(parsed("2-8"), (NodeSizes{2, 8, {}}));
  EXPECT_EQ(parsed("4"), (NodeSizes{4, 4, {}}));
  EXPECT_EQ(parsed("2-8:1"), (NodeSizes{2, 8, {}}));
  EXPECT_EQ(parsed("1,2,3,4"), (NodeSizes{1, 4, {}}));  // every count: no list kept
}

TEST(NodeSizes, AStepOrAListAllowsOnlyThoseCounts) {
  EXPECT_EQ(parsed("2-8:2"), (NodeSizes{2, 8, {2, 4, 6, 8}}));
  EXPECT_EQ(parsed("2-9:2"), (NodeSizes{2, 8, {2, 4, 6, 8}}));  // as sbatch --array: up to B
  EXPECT_EQ(parsed("1,2,4,8"), (NodeSizes{1, 8, {1, 2, 4, 8}}));
  EXPECT_EQ(parsed("8,2,4,4"), (NodeSizes{2, 8, {2, 4, 8}}));  // sorted, once each
  EXPECT_EQ(parsed("2,4-16:4"), (NodeSizes{2, 16, {2, 4, 8, 12, 16}}));
}

TEST(NodeSizes, WhatIsNotTheSpellingOrNoCountIsRefused) {
  for (const char* bad : {"", "a", "2-", "-8", "2-8:", "2-8:0", "2-8:-1", "+2", " 2", "2,,4", "2,",
                          "2-8-9", "2:2", "0x4"}) {
    EXPECT_FALSE(node_sizes_from_text(bad).has_value()) << bad;
  }
  for (const char* bad : {"0", "0-4", "5-2", "5-2:2", "0,2,4", "200000", "1-200000:2"}) {
    const std::optional<NodeSizes> sizes = node_sizes_from_text(bad);
    ASSERT_TRUE(sizes.has_value()) << bad;
    EXPECT_TRUE(node_sizes_problem(*sizes).has_value()) << bad;
  }
  // A list longer than kMaxAllowedSizes says what to do.
  const std::optional<std::string> long_list =
      node_sizes_problem(*node_sizes_from_text("2-5000:2"));
  ASSERT_TRUE(long_list.has_value());
  EXPECT_NE(long_list->find("list fewer"), std::string::npos) << *long_list;
}

TEST(NodeSizes, AHandMadeListIsChecked) {
  EXPECT_FALSE(node_sizes_problem(NodeSizes{2, 8, {2, 4, 8}}));
  EXPECT_TRUE(node_sizes_problem(NodeSizes{2, 8, {2, 8, 4}}));  // not sorted
  EXPECT_TRUE(node_sizes_problem(NodeSizes{2, 8, {2, 4, 4, 8}}));
  EXPECT_TRUE(node_sizes_problem(NodeSizes{2, 8, {4, 8}}));  // min not allowed
  EXPECT_TRUE(node_sizes_problem(NodeSizes{2, 8, {2, 4}}));  // max not allowed
  EXPECT_TRUE(node_sizes_problem(NodeSizes{1, bounds::kMaxNodes + 1, {}}));
}

TEST(NodeSizes, TheTextFormReadsBackTheSame) {
  for (const char* text : {"2-8", "4", "2-8:2", "1,2,4,8", "2,4-16:4", "1-3,8", "3,5"}) {
    const NodeSizes sizes = parsed(text);
    EXPECT_EQ(parsed(to_text(sizes)), sizes) << text << " -> " << to_text(sizes);
  }
  EXPECT_EQ(to_text(parsed("2-8:2")), "2-8:2");
  EXPECT_EQ(to_text(parsed("1,2,4,8")), "1,2,4,8");
  EXPECT_EQ(to_text(parsed("1,2,3,8")), "1-3,8");
}

TEST(NodeSizes, TheLargestAllowedCountAtMost) {
  const NodeSizes pipeline = parsed("2-8:2");
  EXPECT_EQ(largest_allowed_at_most(pipeline, 1), 0);
  EXPECT_EQ(largest_allowed_at_most(pipeline, 2), 2);
  EXPECT_EQ(largest_allowed_at_most(pipeline, 5), 4);
  EXPECT_EQ(largest_allowed_at_most(pipeline, 100), 8);
  EXPECT_TRUE(allows(pipeline, 6));
  EXPECT_FALSE(allows(pipeline, 3));
  EXPECT_FALSE(allows(pipeline, 10));
  const NodeSizes any = parsed("2-8");
  EXPECT_EQ(largest_allowed_at_most(any, 5), 5);
  EXPECT_EQ(largest_allowed_at_most(any, 9), 8);
  EXPECT_EQ(largest_allowed_at_most(any, 1), 0);
}

}  // namespace
}  // namespace gaptrain::node_sizes_test
