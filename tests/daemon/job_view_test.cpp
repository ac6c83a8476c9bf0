#include "job_view.hpp"

#include <gtest/gtest.h>
#include <json/json.h>

#include <string>

#include "core/job_history.hpp"
#include "job_command.hpp"
#include "job_plot.hpp"
#include "status_privacy.hpp"

// What `gaptrain job` shows of a job's history: the daemon's view of it (job_view.hpp), who may
// see it, and the CLI's summary and plot of that view.
namespace gaptrain::daemon::job_view_test {
namespace {

using core::JobHistory;
using core::PrivateData;
using core::ResizeKind;

constexpr double kT = 1'700'000'000.0;
constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

TEST(JobView, TheViewCarriesEveryField) {
  JobHistory history;
  history.resize(7, {kT, ResizeKind::admit, "allocator", {"n1"}});
  history.nodes(7, kAlice, "alice", 1, kT);
  history.progress(7, {kT + 1, 100.0, 1});
  history.progress(7, {kT + 11, 1100.0, 1});
  history.curve(7, {{1, 100.0}}, {{2, 174.1}, {4, 303.1}}, "learned");
  const Json::Value view = job_view_json(*history.find(7), kT + 20);
  EXPECT_EQ(view["job_id"].asUInt(), 7u);
  EXPECT_EQ(view["state"].asString(), "running");
  ASSERT_EQ(view["progress"].size(), 2u);
  EXPECT_DOUBLE_EQ(view["progress"][1][0].asDouble(), kT + 11);
  EXPECT_DOUBLE_EQ(view["progress"][1][1].asDouble(), 1100.0);
  ASSERT_EQ(view["resizes"].size(), 1u);
  EXPECT_EQ(view["resizes"][0]["kind"].asString(), "admit");
  EXPECT_EQ(view["resizes"][0]["reason"].asString(), "allocator");
  EXPECT_EQ(view["resizes"][0]["nodes"][0].asString(), "n1");
  EXPECT_EQ(view["nodes_over_time"][0][1].asInt(), 1);
  EXPECT_EQ(view["curve"]["measured"][0][0].asInt(), 1);
  EXPECT_EQ(view["curve"]["assumed"].size(), 2u);
  EXPECT_DOUBLE_EQ(view["throughput"]["samples_per_s"].asDouble(), 100.0);
  EXPECT_DOUBLE_EQ(view["throughput"]["curve_samples_per_s"].asDouble(), 100.0);
  EXPECT_DOUBLE_EQ(view["node_hours"].asDouble(), 20.0 / 3600.0);
  EXPECT_DOUBLE_EQ(view["resize_lost_s"].asDouble(), 0.0);
  EXPECT_TRUE(view["batch"].isNull()) << "no batch range";
  EXPECT_TRUE(view["noise_scale"].isNull());
  EXPECT_TRUE(view["noise_scale_source"].isNull());
}

TEST(JobView, TheViewCarriesTheBatchRangeAndNoiseScale) {
  JobHistory history;
  history.nodes(7, kAlice, "alice", 2, kT);
  history.goodput(7, BatchRange{128, 4096, 0}, 640.0, "learned");
  const Json::Value view = job_view_json(*history.find(7), kT + 20);
  EXPECT_EQ(view["batch"]["tuned"].asInt(), 128);
  EXPECT_EQ(view["batch"]["max"].asInt(), 4096);
  EXPECT_EQ(view["batch"]["max_per_node"].asInt(), 0);
  EXPECT_EQ(view["noise_scale"].asDouble(), 640.0);
  EXPECT_EQ(view["noise_scale_source"].asString(), "learned");
  const std::string text = cli::format_job(view);
  EXPECT_NE(text.find("batch: 128 tuned, up to 4096; noise scale 640 (learned)"), std::string::npos)
      << text;
}

TEST(JobView, PrivateDataJobsShowsAJobToItsOwnerRootAndSlurmUserOnly) {
  const PrivateData jobs_private{.jobs = true};
  EXPECT_FALSE(job_view_refusal(7, kAlice, jobs_private, {kAlice, false}));
  EXPECT_FALSE(job_view_refusal(7, kAlice, jobs_private, {0, true}));
  const auto refused = job_view_refusal(7, kAlice, jobs_private, {kBob, false});
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("job 7 is not yours"), std::string::npos);
  EXPECT_NE(refused->find("PrivateData=jobs"), std::string::npos);
  // Without PrivateData=jobs anyone may look, as `gaptrain status` shows every job.
  EXPECT_FALSE(job_view_refusal(7, kAlice, PrivateData{}, {kBob, false}));
}

// A job that reports no progress (a plain command, a torchrun script) has no time lost to
// resizes: it reported its whole run as lost.
TEST(JobView, AJobWithoutProgressLosesNoTimeToResizes) {
  JobHistory history;
  history.resize(7, {kT, ResizeKind::admit, "allocator", {"n1"}});
  history.resize(7, {kT + 5, ResizeKind::grow, "allocator", {"n1", "n2"}});
  history.resize(7, {kT + 60, ResizeKind::reclaim, "regular job 42 waits", {"n1"}});
  EXPECT_DOUBLE_EQ(resize_lost_s(*history.find(7), kT + 100), 0.0);
  history.ended(7, kT + 120);
  EXPECT_DOUBLE_EQ(job_view_json(*history.find(7), kT + 130)["resize_lost_s"].asDouble(), 0.0);
  // One that reports progress loses the stretch from a resize to its next progress.
  history.resize(8, {kT, ResizeKind::admit, "allocator", {"n1"}});
  history.progress(8, {kT + 10, 100.0, 1});
  history.resize(8, {kT + 20, ResizeKind::grow, "allocator", {"n1", "n2"}});
  history.progress(8, {kT + 23, 200.0, 2});
  EXPECT_DOUBLE_EQ(resize_lost_s(*history.find(8), kT + 30), 3.0);
}

// What `gaptrain job` prints and draws from the daemon's view.
TEST(JobView, TheCommandSummarisesAndPlotsTheView) {
  JobHistory history;
  history.resize(7, {kT, ResizeKind::admit, "allocator", {"n1"}});
  history.nodes(7, kAlice, "alice", 1, kT);
  history.resize(7, {kT + 60, ResizeKind::reclaim, "regular job 42 is planned on n2", {"n1"}});
  for (int s = 0; s <= 120; s += 10) history.progress(7, {kT + s, 100.0 * s, 1});
  history.curve(7, {{1, 100.0}}, {{2, 174.1}}, "learned");
  const Json::Value view = job_view_json(*history.find(7), kT + 120);
  const std::string text = cli::format_job(view);
  EXPECT_NE(text.find("Job 7 (alice), running"), std::string::npos) << text;
  EXPECT_NE(text.find("reclaim"), std::string::npos) << text;
  EXPECT_NE(text.find("regular job 42 is planned on n2"), std::string::npos) << text;
  EXPECT_NE(text.find("100 samples/s lately, 100 samples/s overall"), std::string::npos) << text;
  EXPECT_NE(text.find("measured 1:100"), std::string::npos) << text;
  EXPECT_EQ(text.find("batch:"), std::string::npos) << "no batch range, no batch line";
  // Rounded as the launcher's summary rounds it (18.6 s was "18s" here and "19 s" there).
  Json::Value lost = view;
  lost["resize_lost_s"] = 18.6;
  EXPECT_NE(cli::format_job(lost).find("time lost to resizes: 19s"), std::string::npos)
      << cli::format_job(lost);
  const std::string svg = cli::job_plot_svg(view);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("reclaim: regular job 42 is planned on n2"), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
}

}  // namespace
}  // namespace gaptrain::daemon::job_view_test
