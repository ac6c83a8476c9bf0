#include "gaptrain/scaling_curve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/input_error_testing.hpp"

namespace gaptrain::scaling_curve_test {
namespace {

using ::testing::HasSubstr;
using testing::input_error_from;

// shufflenet's measured points (shared/data/models/curves.csv).
ScalingCurve shufflenet() {
  return ScalingCurve({{1, 2831.0}, {2, 5259.0}, {4, 9988.0}});
}

TEST(ScalingCurve, ReturnsMeasuredPointsExactly) {
  const ScalingCurve curve = shufflenet();
  EXPECT_DOUBLE_EQ(curve.at(1), 2831.0);
  EXPECT_DOUBLE_EQ(curve.at(2), 5259.0);
  EXPECT_DOUBLE_EQ(curve.at(4), 9988.0);
}

TEST(ScalingCurve, InterpolatesLinearlyBetweenPoints) {
  const ScalingCurve curve = shufflenet();
  EXPECT_DOUBLE_EQ(curve.at(3), (5259.0 + 9988.0) / 2);
  EXPECT_DOUBLE_EQ(curve.at(1.5), (2831.0 + 5259.0) / 2);
  EXPECT_DOUBLE_EQ(curve.at(2.5), 5259.0 + (9988.0 - 5259.0) / 4);
}

TEST(ScalingCurve, StartsFromZeroAtZeroNodes) {
  const ScalingCurve curve = shufflenet();
  EXPECT_EQ(curve.at(0), 0.0);
  EXPECT_DOUBLE_EQ(curve.at(0.5), 2831.0 / 2);
}

TEST(ScalingCurve, IsZeroForNegativeNodeCounts) {
  const ScalingCurve curve = shufflenet();
  EXPECT_EQ(curve.at(-1), 0.0);
  EXPECT_EQ(curve.at(-1e9), 0.0);
}

TEST(ScalingCurve, StaysFlatAfterTheLastPoint) {
  const ScalingCurve curve = shufflenet();
  EXPECT_DOUBLE_EQ(curve.at(5), 9988.0);
  EXPECT_DOUBLE_EQ(curve.at(64), 9988.0);
  EXPECT_DOUBLE_EQ(curve.at(1e6), 9988.0);
}

TEST(ScalingCurve, FirstPointAboveOneNodeInterpolatesFromOrigin) {
  const ScalingCurve curve({{4, 400.0}, {8, 600.0}});
  EXPECT_DOUBLE_EQ(curve.at(1), 100.0);
  EXPECT_DOUBLE_EQ(curve.at(2), 200.0);
  EXPECT_DOUBLE_EQ(curve.at(6), 500.0);
  EXPECT_DOUBLE_EQ(curve.at(9), 600.0);
}

TEST(ScalingCurve, SinglePointIsLinearThenFlat) {
  const ScalingCurve curve({{2, 10.0}});
  EXPECT_DOUBLE_EQ(curve.at(1), 5.0);
  EXPECT_DOUBLE_EQ(curve.at(2), 10.0);
  EXPECT_DOUBLE_EQ(curve.at(3), 10.0);
}

TEST(ScalingCurve, AllowsDecreasingThroughput) {
  // Measured slowdowns are data, not errors: only node counts must increase.
  const ScalingCurve curve({{1, 10.0}, {2, 100.0}, {3, 50.0}});
  EXPECT_DOUBLE_EQ(curve.at(1), 10.0);
  EXPECT_DOUBLE_EQ(curve.at(2.5), 75.0);
  EXPECT_DOUBLE_EQ(curve.at(10), 50.0);
}

TEST(ScalingCurve, KeepsItsPoints) {
  const ScalingCurve curve = shufflenet();
  const std::vector<ScalingCurve::Point>& points = curve.points();
  ASSERT_EQ(points.size(), 3U);
  EXPECT_EQ(points[2].nodes, 4);
  EXPECT_EQ(points[2].samples_per_s, 9988.0);
}

TEST(ScalingCurveErrors, NoPoints) {
  const InputError e = input_error_from([] { ScalingCurve({}); });
  EXPECT_EQ(e.field(), "curve");
  EXPECT_STREQ(e.what(), "curve: needs at least one [nodes, samples_per_s] point");
}

TEST(ScalingCurveErrors, ZeroNodes) {
  const InputError e = input_error_from([] { ScalingCurve({{0, 0.0}, {1, 10.0}}); });
  EXPECT_EQ(e.field(), "curve[0]");
  EXPECT_STREQ(e.what(), "curve[0]: node count must be >= 1, got 0");
}

TEST(ScalingCurveErrors, NegativeNodes) {
  const InputError e = input_error_from([] { ScalingCurve({{-2, 10.0}}); });
  EXPECT_EQ(e.field(), "curve[0]");
  EXPECT_THAT(e.what(), HasSubstr("node count must be >= 1, got -2"));
}

TEST(ScalingCurveErrors, DecreasingNodeCounts) {
  const InputError e = input_error_from([] { ScalingCurve({{1, 1.0}, {4, 4.0}, {2, 2.0}}); });
  EXPECT_EQ(e.field(), "curve[2]");
  EXPECT_STREQ(e.what(), "curve[2]: node counts must increase, got 2 after 4");
}

TEST(ScalingCurveErrors, RepeatedNodeCount) {
  const InputError e = input_error_from([] { ScalingCurve({{1, 1.0}, {1, 2.0}}); });
  EXPECT_EQ(e.field(), "curve[1]");
  EXPECT_STREQ(e.what(), "curve[1]: node counts must increase, got 1 after 1");
}

TEST(ScalingCurveErrors, NegativeThroughput) {
  const InputError e = input_error_from([] { ScalingCurve({{1, 1.0}, {2, -0.5}}); });
  EXPECT_EQ(e.field(), "curve[1]");
  EXPECT_STREQ(e.what(),
               "curve[1]: samples_per_s must be a finite number > 0 and at most 1e15, got -0.5 "
               "(leave out node counts whose throughput was not measured)");
}

TEST(ScalingCurveErrors, ThroughputAndNodeCountBeyondBounds) {
  EXPECT_EQ(input_error_from([] { ScalingCurve({{1, 1e300}}); }).field(), "curve[0]");
  const InputError e = input_error_from([] { ScalingCurve({{1, 1.0}, {2'000'000'000, 2.0}}); });
  EXPECT_EQ(e.field(), "curve[1]");
  EXPECT_THAT(e.what(), HasSubstr("node count must be at most 100000"));
}

// The rate between and beyond points, with a point at every node count (the lookup bisects).
TEST(ScalingCurve, InterpolatesOnADenseCurve) {
  std::vector<ScalingCurve::Point> points;
  for (int n = 1; n <= 1000; ++n) points.push_back({n, 2.0 * n});
  const ScalingCurve curve(points);
  EXPECT_DOUBLE_EQ(curve.at(0.5), 1.0);
  EXPECT_DOUBLE_EQ(curve.at(1.0), 2.0);
  EXPECT_DOUBLE_EQ(curve.at(500.25), 1000.5);
  EXPECT_DOUBLE_EQ(curve.at(1000.0), 2000.0);
  EXPECT_DOUBLE_EQ(curve.at(5000.0), 2000.0);
}

TEST(ScalingCurveErrors, NonFiniteThroughput) {
  for (const double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const InputError e = input_error_from([bad] { ScalingCurve({{1, bad}}); });
    EXPECT_EQ(e.field(), "curve[0]") << bad;
    EXPECT_THAT(e.what(), HasSubstr("samples_per_s must be a finite number > 0")) << bad;
  }
}

}  // namespace
}  // namespace gaptrain::scaling_curve_test
