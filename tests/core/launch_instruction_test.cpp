#include "core/launch_instruction.hpp"

#include <gtest/gtest.h>

#include "gaptrain/goodput.hpp"

namespace gaptrain::core::launch_instruction_test {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

Job running_job(std::vector<std::string> nodes) {
  Job job;
  job.id = 5;
  job.user_id = 1001;
  job.user = "alice";
  job.partition = "elastic";
  job.state = JobState::running;
  job.nodes = std::move(nodes);
  job.batch_host = "n1";
  return job;
}

// Job 5 on n1, 1 to 8 nodes, its curve measured at 64 samples a node: sync costs grow with the
// count, so the batch choose_batch gives differs from one count to the next.
protocol::JobRegistration registration(std::optional<BatchRange> batch) {
  protocol::JobRegistration r;
  r.job_id = 5;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 8;
  r.curve = ScalingCurve({{1, 1000.0}, {2, 1800.0}, {4, 3000.0}, {8, 4000.0}});
  r.batch = batch;
  return r;
}

protocol::InstructedBatch expected(const ElasticJob& job, int nodes, double phi) {
  const BatchChoice choice = choose_batch(StepTimeModel::from_curve(job.curve, 64),
                                          *job.given.batch, 1, phi, nodes, BatchRule::adaptive);
  return {job.given.batch->tuned, choice.global, choice.per_node, choice.accumulation,
          choice.lr_gain};
}

TEST(LaunchInstruction, AJobWithoutABatchRangeIsToldNoBatch) {
  ElasticJobs jobs;
  const Job job = running_job({"n1"});
  ASSERT_FALSE(jobs.add(registration(std::nullopt), &job, "elastic", kNow));
  const protocol::LaunchInstruction instruction = launch_instruction(jobs.jobs().at(5), {}, {});
  EXPECT_EQ(instruction.nodes, (std::vector<std::string>{"n1"}));
  EXPECT_FALSE(instruction.batch);
}

TEST(LaunchInstruction, AfterAGrowTheBatchIsChooseBatchsForTheNewCount) {
  ElasticJobs jobs;
  const Job job = running_job({"n1"});
  ASSERT_FALSE(jobs.add(registration(BatchRange{64, 4096, 256}), &job, "elastic", kNow));
  const ElasticJob& e = jobs.jobs().at(5);
  const auto on_one = launch_instruction(e, {}, {}).batch;
  ASSERT_TRUE(on_one);
  EXPECT_EQ(*on_one, expected(e, 1, 64.0)) << "phi assumed: M0";
  EXPECT_EQ(on_one->global, on_one->per_node * on_one->accumulation);

  // Grown onto n2..n4 (satellites).
  jobs.resized(5, {"n1", "n2", "n3", "n4"}, {{"n2", 6}, {"n3", 6}, {"n4", 6}}, 10.0);
  const auto on_four = launch_instruction(e, {}, {}).batch;
  ASSERT_TRUE(on_four);
  EXPECT_EQ(*on_four, expected(e, 4, 64.0));
  EXPECT_EQ(on_four->global, 4L * on_four->per_node * on_four->accumulation);
  EXPECT_NE(*on_four, *on_one) << "the test needs a count whose batch differs";

  // Nodes being drained are not trained on: the batch is that of the nodes kept.
  const auto draining = launch_instruction(e, {"n3", "n4"}, {}).batch;
  ASSERT_TRUE(draining);
  EXPECT_EQ(*draining, expected(e, 2, 64.0));

  // A learned noise scale changes the batch the job is told.
  protocol::LauncherReport report;
  report.job_id = 5;
  report.grad_sqr = 1.0;
  report.grad_var = 100.0;  // phi = 64 * 100 = 6400: noisy gradients, large batches pay
  ASSERT_TRUE(jobs.report(report, kNow + 1, 11.0));
  EXPECT_EQ(*launch_instruction(e, {}, {}).batch, expected(e, 4, 6400.0));
}

TEST(LaunchInstruction, NoticesOnlyForNodesTheJobHolds) {
  ElasticJobs jobs;
  const Job job = running_job({"n1", "n2"});
  ASSERT_FALSE(jobs.add(registration(std::nullopt), &job, "elastic", kNow));
  const auto instruction =
      launch_instruction(jobs.jobs().at(5), {"n2"}, {{"n2", 1.7e9}, {"n9", 1.7e9}});
  EXPECT_EQ(instruction.drain, (std::vector<std::string>{"n2"}));
  EXPECT_EQ(instruction.notice, (std::map<std::string, double>{{"n2", 1.7e9}}));
}

}  // namespace
}  // namespace gaptrain::core::launch_instruction_test
