#include "allocator/equal_share.hpp"

#include <gtest/gtest.h>

namespace gaptrain {
namespace {

TEST(EqualShare, SplitsEquallyThenGivesLeftoversInFcfsOrder) {
  EXPECT_EQ(equal_share_counts({{1, 8}, {1, 8}, {1, 8}}, 10), (std::vector<int>{4, 3, 3}));
}

TEST(EqualShare, RespectsMaxAndPassesLeftoversOn) {
  EXPECT_EQ(equal_share_counts({{1, 2}, {1, 8}}, 10), (std::vector<int>{2, 8}));
}

TEST(EqualShare, AJobWhoseMinExceedsTheShareWaitsForLeftovers) {
  // Share 3: b (min 4) gets nothing at first; a and c take 3; 4 left go to a (up to 5, its max)
  // and then b (2 left < its min 4: nothing).
  EXPECT_EQ(equal_share_counts({{1, 5}, {4, 8}, {1, 3}}, 10), (std::vector<int>{5, 0, 3}));
  EXPECT_EQ(equal_share_counts({{1, 3}, {4, 8}, {1, 3}}, 10), (std::vector<int>{3, 4, 3}));
}

TEST(EqualShare, NothingToShare) {
  EXPECT_EQ(equal_share_counts({{1, 2}}, 0), (std::vector<int>{0}));
  EXPECT_TRUE(equal_share_counts({}, 5).empty());
}

}  // namespace
}  // namespace gaptrain
