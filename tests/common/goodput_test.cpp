#include "gaptrain/goodput.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gaptrain::goodput_test {
namespace {

struct Validation {
  double progress, grad_sqr, grad_var;
};

// MODEL-validation-BATCH.csv of Pollux's artifact: progress,iteration,metric,grad_sqr,grad_var.
std::vector<Validation> read_validation(const std::string& name) {
  std::ifstream in(std::string(GAPTRAIN_SHARED_DATA_DIR) + "/models/pollux/" + name);
  std::vector<Validation> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<double> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(std::stod(x));
    if (f.size() == 5) rows.push_back({f[0], f[3], f[4]});
  }
  return rows;
}

TEST(Goodput, EfficiencyAndGainAreAdaScalesOnPolluxsData) {
  // Pollux: gain = (var + sqr) / (var / s + sqr), s = M / M0, efficiency = gain / s, with the
  // job's gradient statistics at its tuned batch; here phi = M0 * var / sqr carries them.
  for (const auto& [file, tuned] :
       {std::pair{"cifar10-validation-128.csv", 128}, std::pair{"imagenet-validation-200.csv", 200},
        std::pair{"bert-validation-12.csv", 12}}) {
    const std::vector<Validation> rows = read_validation(file);
    ASSERT_GE(rows.size(), 2u) << file;
    for (const Validation& row : {rows.front(), rows[rows.size() / 2], rows.back()}) {
      const double phi = tuned * row.grad_var / row.grad_sqr;
      for (const double global : {1.0 * tuned, 2.0 * tuned, 8.0 * tuned, 32.0 * tuned}) {
        const double s = global / tuned;
        const double gain = (row.grad_var + row.grad_sqr) / (row.grad_var / s + row.grad_sqr);
        EXPECT_NEAR(adascale_gain(phi, tuned, global), gain, 1e-9 * gain) << file;
        EXPECT_NEAR(statistical_efficiency(phi, tuned, global), gain / s, 1e-9) << file;
      }
    }
  }
}

TEST(Goodput, ACurvesModelGivesTheCurveBackAndStaysFlatBeyondIt) {
  const ScalingCurve curve({{1, 100.0}, {2, 190.0}, {4, 340.0}, {8, 560.0}});
  const StepTimeModel model = StepTimeModel::from_curve(curve, 32);
  EXPECT_EQ(model.fixed_s, 0.0);
  for (const ScalingCurve::Point& p : curve.points()) {
    EXPECT_NEAR(model.samples_per_s(p.nodes, 32, 1), p.samples_per_s, 1e-9 * p.samples_per_s);
  }
  EXPECT_NEAR(model.samples_per_s(16, 32, 1), 560.0, 1e-6);
  EXPECT_NEAR(model.samples_per_s(1000, 32, 1), 560.0, 1e-6);
  // A larger share a node amortizes the all-reduce: more samples per second.
  EXPECT_GT(model.samples_per_s(8, 128, 1), model.samples_per_s(8, 32, 1));
  // Accumulation amortizes it too, as a larger micro-batch would.
  EXPECT_NEAR(model.samples_per_s(8, 32, 4), model.samples_per_s(8, 128, 1), 1e-9);
}

TEST(Goodput, AdaptiveGrowsTheBatchOnlyWhereItPays) {
  // The all-reduce costs as much as 64 samples' compute: a larger batch amortizes it.
  StepTimeModel syncing{0.0, 0.001, {{2, 0.064}, {64, 0.064}}};
  const BatchRange range{128, 4096, 256};
  const BatchChoice noisy = choose_batch(syncing, range, 1, 1e6, 16, BatchRule::adaptive);
  EXPECT_GT(noisy.global, 128);
  EXPECT_LE(noisy.global, 4096);
  // Little noise: every sample beyond M0 is worth little, M0 wins.
  const BatchChoice quiet = choose_batch(syncing, range, 1, 1.0, 16, BatchRule::adaptive);
  EXPECT_EQ(quiet.global, 128);
  // No all-reduce cost: the batch adds no throughput, so M0 at any noise.
  StepTimeModel free{0.0, 0.001, {}};
  EXPECT_EQ(choose_batch(free, range, 1, 1e6, 16, BatchRule::adaptive).global, 128);
  for (int nodes = 1; nodes <= 70; ++nodes) {
    const BatchChoice c = choose_batch(syncing, range, 1, 1e4, nodes, BatchRule::adaptive);
    EXPECT_GE(c.global, 128) << nodes;
    EXPECT_LE(c.global, 4096) << nodes;
    EXPECT_LE(c.per_node, 256) << nodes;
    EXPECT_EQ(c.global, static_cast<long>(c.nodes) * c.per_node * c.accumulation) << nodes;
    EXPECT_NEAR(c.goodput, c.samples_per_s * c.efficiency, 1e-9 * c.goodput);
    EXPECT_NEAR(c.lr_gain, adascale_gain(1e4, 128, static_cast<double>(c.global)), 1e-9);
  }
}

TEST(Goodput, AccumulationOnlyWhereAShareExceedsAMicroStep) {
  StepTimeModel model{0.0, 0.001, {{2, 0.01}}};
  const BatchRange range{512, 512, 64};
  const BatchChoice two = choose_batch(model, range, 1, 100.0, 2, BatchRule::global);
  EXPECT_EQ(two.accumulation, 4);
  EXPECT_EQ(two.per_node, 64);
  const BatchChoice eight = choose_batch(model, range, 1, 100.0, 8, BatchRule::global);
  EXPECT_EQ(eight.accumulation, 1);
  EXPECT_EQ(eight.per_node, 64);
}

TEST(Goodput, FixedRulesKeepTheirBatch) {
  StepTimeModel model{0.0, 0.001, {{2, 0.01}}};
  const BatchRange range{128, 4096, 0};  // micro-step bound: 128 / min_nodes 2 = 64
  EXPECT_EQ(max_per_node(range, 2), 64);
  const BatchChoice per_node = choose_batch(model, range, 2, 100.0, 8, BatchRule::per_node);
  EXPECT_EQ(per_node.global, 8 * 64);
  EXPECT_EQ(per_node.accumulation, 1);
  const BatchChoice global = choose_batch(model, range, 2, 100.0, 8, BatchRule::global);
  EXPECT_EQ(global.global, 128);
  EXPECT_EQ(global.per_node, 16);
  // More nodes than samples: the extra nodes get none and add nothing.
  const BatchChoice wide = choose_batch(model, range, 2, 100.0, 200, BatchRule::global);
  EXPECT_EQ(wide.nodes, 128);
  EXPECT_EQ(wide.global, 128);
}

TEST(Goodput, TheAllocatorsCurveIsTheChoicesGoodputAtEnoughCounts) {
  StepTimeModel model{0.0, 0.001, {{2, 0.02}, {1000, 0.2}}};
  const BatchRange range{64, 8192, 128};
  const ScalingCurve curve = goodput_curve(model, range, 1, 1000, 500.0, BatchRule::adaptive);
  const auto& points = curve.points();
  ASSERT_EQ(points.front().nodes, 1);
  EXPECT_EQ(points.back().nodes, 1000);
  for (int n = 1; n <= 64; ++n) EXPECT_EQ(points[static_cast<std::size_t>(n - 1)].nodes, n);
  // About 32 counts a doubling after 64: 64 -> 1000 is about 4 doublings.
  EXPECT_NEAR(static_cast<double>(points.size() - 64), 32 * std::log2(1000.0 / 64), 8.0);
  for (const ScalingCurve::Point& p : points) {
    EXPECT_DOUBLE_EQ(p.samples_per_s,
                     choose_batch(model, range, 1, 500.0, p.nodes, BatchRule::adaptive).goodput);
  }
  // A fixed rule's curve is its raw throughput: what a job with that batch reports.
  const ScalingCurve raw = goodput_curve(model, range, 1, 16, 500.0, BatchRule::per_node);
  EXPECT_DOUBLE_EQ(raw.at(16),
                   choose_batch(model, range, 1, 500.0, 16, BatchRule::per_node).samples_per_s);
}

}  // namespace
}  // namespace gaptrain::goodput_test
