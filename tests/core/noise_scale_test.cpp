#include "core/noise_scale.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gaptrain::core::noise_scale_test {
namespace {

TEST(NoiseScaleLearner, NothingIsLearnedBeforeAnEstimate) {
  const NoiseScaleLearner learner;
  EXPECT_FALSE(learner.noise_scale(128));
}

TEST(NoiseScaleLearner, LearnsTunedBatchTimesVarianceOverSquaredNormSmoothed) {
  NoiseScaleLearner learner;
  // The first estimate is taken as it is: phi = M0 * var / sqr = 128 * 0.5 / 0.25.
  ASSERT_TRUE(learner.observe(0.25, 0.5));
  EXPECT_DOUBLE_EQ(*learner.noise_scale(128), 256.0);
  // A sequence whose own ratio is 128 * 2 / 0.25 = 1024: the learned value moves towards it,
  // every report, without jumping there at once, and never past it.
  double last = 256.0;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(learner.observe(0.25, 2.0));
    const double now = *learner.noise_scale(128);
    EXPECT_GT(now, last) << i;
    EXPECT_LE(now, 1024.0 + 1e-9) << i;
    if (i == 0) {
      EXPECT_LT(now, 1024.0 * 0.75) << "one report is smoothed, not taken";
    }
    last = now;
  }
  EXPECT_NEAR(last, 1024.0, 1.0);
}

TEST(NoiseScaleLearner, AReportThatIsNoEstimateChangesNothing) {
  NoiseScaleLearner learner;
  ASSERT_TRUE(learner.observe(0.5, 0.5));
  const double before = *learner.noise_scale(64);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [sqr, var] : {std::pair{0.0, 1.0},
                                 {-1.0, 1.0},
                                 {1.0, -0.5},
                                 {nan, 1.0},
                                 {1.0, nan},
                                 {inf, 1.0},
                                 {1.0, inf}}) {
    EXPECT_FALSE(learner.observe(sqr, var)) << sqr << " " << var;
    EXPECT_EQ(*learner.noise_scale(64), before) << sqr << " " << var;
  }
  NoiseScaleLearner fresh;
  EXPECT_FALSE(fresh.observe(0.0, 1.0));
  EXPECT_FALSE(fresh.noise_scale(64)) << "a refused first report teaches nothing";
}

TEST(NoiseScaleLearner, NoVarianceIsANoiseScaleOfZero) {
  NoiseScaleLearner learner;
  ASSERT_TRUE(learner.observe(2.0, 0.0));
  EXPECT_EQ(*learner.noise_scale(256), 0.0);
}

// What a job is valued and told its batch at moves in steps: an estimate within a fifth of it
// leaves it, one beyond replaces it (and the first is taken as it is).
TEST(NoiseScaleStep, TheValueUsedMovesOnlyWhenTheEstimateDriftsMoreThanAFifth) {
  EXPECT_EQ(stepped_noise_scale(std::nullopt, 300.0), 300.0);
  EXPECT_EQ(stepped_noise_scale(1000.0, 1150.0), 1000.0);
  EXPECT_EQ(stepped_noise_scale(1000.0, 850.0), 1000.0);
  EXPECT_EQ(stepped_noise_scale(1000.0, 1201.0), 1201.0);
  EXPECT_EQ(stepped_noise_scale(1000.0, 799.0), 799.0);
  EXPECT_EQ(stepped_noise_scale(1000.0, std::nullopt), 1000.0);
  EXPECT_FALSE(stepped_noise_scale(std::nullopt, std::nullopt));
  EXPECT_EQ(stepped_noise_scale(0.0, 0.5), 0.5) << "from zero any estimate is a step";
}

}  // namespace
}  // namespace gaptrain::core::noise_scale_test
