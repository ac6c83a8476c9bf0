#include "core/curve_learner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace gaptrain::core::curve_learner_test {
namespace {

TEST(CurveLearner, StartsFromTheConservativePrior) {
  const CurveLearner learner(8);
  EXPECT_EQ(learner.one_node_rate(), std::nullopt);
  const ScalingCurve curve = learner.curve(100.0);
  EXPECT_DOUBLE_EQ(curve.at(1), 100.0);
  EXPECT_NEAR(curve.at(8), 100.0 * std::pow(8.0, 0.8), 1e-9);
  EXPECT_DOUBLE_EQ(learner.up_cost_s(), 30.0);
  EXPECT_DOUBLE_EQ(learner.down_cost_s(), 30.0);
}

TEST(CurveLearner, OneMeasurementScalesThePriorShape) {
  CurveLearner learner(16);
  learner.observe_progress(4, 4000.0, 10.0);  // 400/s on 4 nodes
  const ScalingCurve curve = learner.curve(1.0);
  EXPECT_DOUBLE_EQ(curve.at(4), 400.0);
  EXPECT_NEAR(curve.at(1), 400.0 / std::pow(4.0, 0.8), 1e-9);
}

TEST(CurveLearner, TwoNodeCountsFitTheExponent) {
  CurveLearner learner(64);
  // S(n) = 100 n^0.9, measured at 2 and 8 nodes.
  for (const int n : {2, 8}) learner.observe_progress(n, 100.0 * std::pow(n, 0.9) * 60.0, 60.0);
  const ScalingCurve curve = learner.curve(1.0);
  EXPECT_NEAR(curve.at(64), 100.0 * std::pow(64.0, 0.9), 1e-6);
  EXPECT_NEAR(*learner.one_node_rate(), 100.0, 1e-9);
}

TEST(CurveLearner, TheFittedExponentStaysWithinItsBounds) {
  CurveLearner learner(64);
  learner.observe_progress(1, 100.0, 1.0);
  learner.observe_progress(2, 1000.0, 1.0);  // a measurement glitch: 10x on 2 nodes
  // The fit says 3.3; clamped to linear, anchored at 1 node (both measured equally long).
  EXPECT_NEAR(learner.curve(1.0).at(64), 100.0 * 64.0, 1e-6);
}

// A job measured at ~110,000 samples/s on 1 node and ~16,000 on 4 (the 4 nodes
// share 2 cores). The learned curve must follow the measurements, not the prior's rising shape:
// S(1) is the measured one (the fit anchored at 4 nodes said 8,000), 2 nodes lie between the
// measured neighbours (the fit said 11,300, below both), and more nodes promise no more than
// the measured 4 at the fitted exponent.
TEST(CurveLearner, MeasuredRatesWinOverThePriorShape) {
  CurveLearner learner(8);
  learner.observe_progress(1, 110'000.0 * 20.0, 20.0);
  learner.observe_progress(4, 16'000.0 * 300.0, 300.0);
  ASSERT_TRUE(learner.one_node_rate());
  EXPECT_DOUBLE_EQ(*learner.one_node_rate(), 110'000.0);
  const ScalingCurve curve = learner.curve(1.0);
  EXPECT_DOUBLE_EQ(curve.at(1), 110'000.0);
  EXPECT_DOUBLE_EQ(curve.at(4), 16'000.0);
  EXPECT_GT(curve.at(2), 16'000.0);
  EXPECT_LT(curve.at(2), 110'000.0);
  EXPECT_LT(curve.at(8), curve.at(1));
}

TEST(CurveLearner, MeasuredRatesAreTheMeansPerNodeCount) {
  CurveLearner learner(8);
  learner.observe_progress(1, 1000.0, 10.0);
  learner.observe_progress(1, 3000.0, 10.0);
  learner.observe_progress(4, 0.0, 10.0);  // no progress: no measurement
  EXPECT_EQ(learner.measured_rates(), (std::map<int, double>{{1, 200.0}}));
}

// A window without progress (a training that writes its progress only at checkpoints) is no
// measurement of throughput: a learned S(1) of 0 once made the speedup objective throw and
// gaptraind exit. Until progress is seen the prior stays.
TEST(CurveLearner, WindowsWithoutProgressLearnNothing) {
  CurveLearner learner(8);
  learner.observe_progress(2, 0.0, 10.0);
  learner.observe_progress(4, 0.0, 30.0);
  EXPECT_EQ(learner.one_node_rate(), std::nullopt);
  const ScalingCurve curve = learner.curve(100.0);
  EXPECT_DOUBLE_EQ(curve.at(1), 100.0);
  EXPECT_NEAR(curve.at(2), 100.0 * std::pow(2.0, 0.8), 1e-9);
  // Progress then seen on 2 nodes is learned as usual; the flat window at 4 stays out of it.
  learner.observe_progress(2, 2000.0, 10.0);
  ASSERT_TRUE(learner.one_node_rate());
  EXPECT_GT(*learner.one_node_rate(), 0.0);
  EXPECT_GT(learner.curve(1.0).at(4), learner.curve(1.0).at(2));
}

// A maximum near 2^31 once looped forever (n *= 2 overflows above 2^30); absurd progress once
// made a curve the allocator refuses.
TEST(CurveLearner, HugeSizesAndRatesStayWithinTheBounds) {
  CurveLearner learner(2'147'483'647);
  learner.observe_progress(1, 1e300, 1.0);
  const ScalingCurve curve = learner.curve(1.0);
  EXPECT_EQ(curve.points().back().nodes, 100'000);
  EXPECT_LE(curve.at(100'000), 1e15);
}

TEST(CurveLearner, RescaleCostsAreTheMeanObservedStall) {
  CurveLearner learner(4);
  learner.observe_rescale(true, 18.0);
  learner.observe_rescale(true, 20.0);
  learner.observe_rescale(false, 12.0);
  EXPECT_DOUBLE_EQ(learner.up_cost_s(), 19.0);
  EXPECT_DOUBLE_EQ(learner.down_cost_s(), 12.0);
}

}  // namespace
}  // namespace gaptrain::core::curve_learner_test
