// How a job with a batch range trains in `gaptrain simulate --models`: its rate at the
// batch its rule (or gaptraind) gives, each sample worth its statistical efficiency at the noise
// scale its progress has reached, on Pollux's cifar10 data.
#include "simulator/batch_training.hpp"

#include <gtest/gtest.h>

#include <string>

#include "pollux_data.hpp"

namespace gaptrain::sim::batch_training_test {
namespace {

const PolluxModel& cifar10() {
  static const PolluxModel model =
      pollux_model(read_pollux("cifar10-scalability.csv"), "cifar10-scalability.csv",
                   read_pollux("cifar10-validation-128.csv"), "cifar10-validation-128.csv", 128);
  return model;
}

JobRow job(int min_nodes) {
  JobRow spec;
  spec.id = "c";
  spec.model = "cifar10";
  spec.min_nodes = min_nodes;
  spec.max_nodes = 64;
  spec.work_samples = 5e6;
  spec.batch = BatchRange{128, 4096, 0};
  return spec;
}

TEST(BatchTraining, TheModelHoldsItsLargestLocalBatchAndNoiseInSamples) {
  EXPECT_EQ(cifar10().max_local_batch, 1024);
  // The file's first row: 391 steps at 128, so 50,048 samples.
  EXPECT_EQ(cifar10().noise.points.front().progress, 391.0 * 128);
  // cifar10's noise scale grows as it trains: large batches are worth more late.
  EXPECT_GT(cifar10().noise.points.back().noise_scale,
            100 * cifar10().noise.points.front().noise_scale);
  const BatchTraining training(cifar10(), job(1), BatchRule::adaptive);
  EXPECT_EQ(training.range().max_per_node, 1024);
}

TEST(BatchTraining, GlobalRuleKeepsTheTunedBatchAndEverySampleCountsInFull) {
  const BatchTraining training(cifar10(), job(1), BatchRule::global);
  for (const int nodes : {1, 2, 8, 64}) {
    const TrainingRate rate = training.rate(nodes, 1e6, std::nullopt);
    EXPECT_EQ(rate.global_batch, 128) << nodes;
    EXPECT_DOUBLE_EQ(rate.progress_per_s, rate.samples_per_s) << nodes;
    EXPECT_NEAR(training.registered_curve(64).at(nodes), rate.samples_per_s,
                1e-9 * rate.samples_per_s);
  }
}

TEST(BatchTraining, PerNodeRuleGrowsTheBatchWithTheNodesAndEachSampleIsWorthLess) {
  const BatchTraining training(cifar10(), job(2), BatchRule::per_node);
  const double progress = 1e5;
  const double phi = training.noise_scale(progress);
  const TrainingRate rate = training.rate(16, progress, std::nullopt);
  EXPECT_EQ(rate.global_batch, 16 * 64);
  EXPECT_NEAR(rate.progress_per_s, rate.samples_per_s * statistical_efficiency(phi, 128, 16.0 * 64),
              1e-9 * rate.samples_per_s);
  EXPECT_LT(rate.progress_per_s, 0.5 * rate.samples_per_s);  // early on phi is small
  EXPECT_NEAR(training.registered_curve(64).at(16), rate.samples_per_s, 1e-9 * rate.samples_per_s);
}

TEST(BatchTraining, AdaptiveTrainsAtTheBatchGaptraindTold) {
  const BatchTraining training(cifar10(), job(1), BatchRule::adaptive);
  const double progress = 4e6;
  const protocol::InstructedBatch told{128, 2048, 256, 1, 1.0};
  const TrainingRate rate = training.rate(8, progress, told);
  EXPECT_EQ(rate.global_batch, 2048);
  const double samples = cifar10().step_time.samples_per_s(8, 256, 1);
  EXPECT_DOUBLE_EQ(rate.samples_per_s, samples);
  EXPECT_DOUBLE_EQ(rate.progress_per_s,
                   samples * statistical_efficiency(training.noise_scale(progress), 128, 2048));
  // A batch smaller than the nodes trains on as many nodes as get a share.
  const protocol::InstructedBatch small{128, 128, 32, 1, 1.0};
  EXPECT_DOUBLE_EQ(training.rate(8, progress, small).samples_per_s,
                   cifar10().step_time.samples_per_s(4, 32, 1));
  // Before it was told a batch, the job trains at its usual per-node batch.
  const TrainingRate untold = training.rate(8, progress, std::nullopt);
  EXPECT_EQ(untold.global_batch, 8 * 128);
  EXPECT_EQ(training.rate(0, progress, told).samples_per_s, 0.0);
}

}  // namespace
}  // namespace gaptrain::sim::batch_training_test
