// Grouping nodes into hole-end classes (docs/allocator.md, "Hole classes").
#include "allocator/model/hole_classes.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace gaptrain::allocator::hole_classes_test {
namespace {

AllocationProblem with_hole_ends(const std::vector<std::optional<double>>& ends, int max_classes) {
  AllocationProblem p;
  p.horizon_s = 600.0;
  p.solver.max_hole_classes = max_classes;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    p.nodes.push_back({"n" + std::to_string(i), std::nullopt, ends[i]});
  }
  return p;
}

TEST(HoleClasses, UnknownHoleEndsFormOneClassAtTheHorizon) {
  const HoleClasses c = classify_holes(with_hole_ends({std::nullopt, std::nullopt}, 4));
  EXPECT_EQ(c.end_s, std::vector<double>{600.0});
  EXPECT_EQ(c.size, std::vector<int>{2});
  EXPECT_EQ(c.node_class, (std::vector<int>{0, 0}));
}

TEST(HoleClasses, HoleEndsBeyondTheHorizonCountAsTheHorizon) {
  const HoleClasses c = classify_holes(with_hole_ends({900.0, std::nullopt, 600.0}, 4));
  EXPECT_EQ(c.end_s, std::vector<double>{600.0});
  EXPECT_EQ(c.size, std::vector<int>{3});
}

TEST(HoleClasses, FewDistinctEndsAreKeptExactly) {
  const HoleClasses c = classify_holes(with_hole_ends({30.0, std::nullopt, 120.0, 30.0}, 4));
  EXPECT_EQ(c.end_s, (std::vector<double>{30.0, 120.0, 600.0}));
  EXPECT_EQ(c.size, (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(c.node_class, (std::vector<int>{0, 2, 1, 0}));
}

TEST(HoleClasses, ManyDistinctEndsAreRoundedDownIntoGroups) {
  // Eight distinct ends below the horizon plus unknown ones, at most 3 classes: the horizon class
  // stays alone and the rest form 2 groups of 4 nodes, each rounded down to its smallest end.
  const HoleClasses c = classify_holes(with_hole_ends(
      {10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, std::nullopt, std::nullopt}, 3));
  EXPECT_EQ(c.end_s, (std::vector<double>{10.0, 50.0, 600.0}));
  EXPECT_EQ(c.size, (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(c.node_class, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}));
}

TEST(HoleClasses, RoundingNeverPromisesMoreThanPredicted) {
  std::vector<std::optional<double>> ends;
  for (int i = 0; i < 50; ++i) ends.emplace_back(7.0 * i + 1.0);
  ends.emplace_back(std::nullopt);
  const AllocationProblem p = with_hole_ends(ends, 4);
  const HoleClasses c = classify_holes(p);
  ASSERT_LE(c.end_s.size(), 4u);
  for (std::size_t n = 0; n < p.nodes.size(); ++n) {
    const double availability =
        p.nodes[n].hole_end_s ? std::min(*p.nodes[n].hole_end_s, 600.0) : 600.0;
    EXPECT_LE(c.end_s[static_cast<std::size_t>(c.node_class[n])], availability) << "node " << n;
  }
}

TEST(HoleClasses, OneClassIgnoresHoleEndsLikeBFTrainer) {
  const HoleClasses c = classify_holes(with_hole_ends({5.0, 300.0, std::nullopt}, 1));
  EXPECT_EQ(c.end_s, std::vector<double>{600.0});
  EXPECT_EQ(c.size, std::vector<int>{3});
}

TEST(HoleClasses, AllFiniteEndsUseEveryClass) {
  const HoleClasses c = classify_holes(with_hole_ends({10.0, 20.0, 30.0}, 2));
  EXPECT_EQ(c.end_s.size(), 2u);
  EXPECT_EQ(c.end_s.front(), 10.0);
}

// Node types: a class is a (type, availability) pair, each type grouped on its own,
// all ordered by availability (ties by type), so that segments still end at availabilities.
TEST(HoleClasses, EachNodeTypeHasItsOwnClasses) {
  AllocationProblem p = with_hole_ends({30.0, std::nullopt, 30.0, 120.0, std::nullopt, 50.0}, 2);
  for (std::size_t n : {0U, 1U}) p.nodes[n].type = "gpu";
  p.nodes[5].type = "gpu";
  const HoleClasses c = classify_holes(p);
  EXPECT_EQ(c.type_name, (std::vector<std::string>{"", "gpu"}));
  // The default type's 30, 120 and 600 become 30 and 600 (two classes a type); gpu keeps
  // 30 (with 50 rounded down to it) and 600.
  EXPECT_EQ(c.end_s, (std::vector<double>{30.0, 30.0, 600.0, 600.0}));
  EXPECT_EQ(c.type, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(c.size, (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(c.node_class, (std::vector<int>{1, 3, 0, 0, 2, 1}));
}

}  // namespace
}  // namespace gaptrain::allocator::hole_classes_test
