#include "simulator/pollux_models.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "gaptrain/input_error.hpp"
#include "pollux_data.hpp"

namespace gaptrain::sim::pollux_models_test {
namespace {

// The fitted model reproduces the file's step times: within 25% on average over its rows (the
// rows mix placements of the same replica count, which one node per replica cannot tell apart).
TEST(PolluxModels, FittedStepTimeFollowsTheScalabilityRows) {
  for (const std::string model : {"cifar10", "imagenet", "bert"}) {
    const std::string text = read_pollux(model + "-scalability.csv");
    const StepTimeModel fit = fit_step_time(text, model);
    EXPECT_GT(fit.per_sample_s, 0.0) << model;
    EXPECT_EQ(fit.sync_at(1), 0.0) << model;
    EXPECT_GT(fit.sync_at(64), 0.0) << model;
    std::istringstream rows(text);
    std::string line;
    std::getline(rows, line);
    double relative_error = 0.0;
    int count = 0;
    while (std::getline(rows, line)) {
      double nodes, replicas, local, step, sync;
      char c;
      std::istringstream(line) >> nodes >> c >> replicas >> c >> local >> c >> step >> c >> sync;
      const double predicted =
          fit.fixed_s + fit.per_sample_s * local + fit.sync_at(static_cast<int>(replicas));
      relative_error += std::abs(predicted - step) / step;
      ++count;
    }
    EXPECT_LT(relative_error / count, 0.25) << model;
  }
}

TEST(PolluxModels, NoiseScaleIsTunedTimesVarianceOverSquare) {
  const NoiseProfile profile =
      parse_noise_profile(read_pollux("cifar10-validation-128.csv"), "cifar10", 128.0);
  ASSERT_GE(profile.points.size(), 2u);
  // The file's first two rows: progress 391 and 782.
  EXPECT_NEAR(profile.at(391.0), 128.0 * 5.066593295150894 / 8.947307535897329, 1e-9);
  EXPECT_NEAR(profile.at(782.0), 128.0 * 1.5924912096114732 / 1.895227805639273, 1e-9);
  EXPECT_NEAR(profile.at(586.5), (profile.at(391.0) + profile.at(782.0)) / 2.0, 1e-9);
  EXPECT_EQ(profile.at(0.0), profile.at(391.0));
  EXPECT_EQ(profile.at(1e12), profile.points.back().noise_scale);
}

TEST(PolluxModels, BadRowsNameTheFileAndLine) {
  const std::string header = "progress,iteration,metric,grad_sqr,grad_var\n";
  try {
    parse_noise_profile(header + "1,1,0.5,x,1\n", "v.csv", 128.0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("v.csv:2: field 4: expected a finite number", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(parse_noise_profile("a,b\n1,2\n", "v.csv", 128.0), InputError);
  EXPECT_THROW(parse_noise_profile(header, "v.csv", 128.0), InputError);
  EXPECT_THROW(parse_noise_profile(header + "2,1,0,1,1\n1,2,0,1,1\n", "v.csv", 128.0), InputError);
}

}  // namespace
}  // namespace gaptrain::sim::pollux_models_test
