#include "core/job_history.hpp"

#include <gtest/gtest.h>
#include <json/json.h>

#include <string>

#include "job_command.hpp"
#include "job_plot.hpp"
#include "job_view.hpp"
#include "status_privacy.hpp"

namespace gaptrain::daemon {
namespace {

constexpr double kT = 1'700'000'000.0;
constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

ResizeRecord resize(double time, ResizeKind kind, std::vector<std::string> nodes) {
  return {time, kind, "allocator", std::move(nodes)};
}

// The wall clock steps an hour forward, then an hour back, while the job runs (the monotonic
// clock, the second argument of tick, goes on): neither step counts as node-hours or as time
// lost to a resize, and the training's progress stamps (its own clock, which did not step) land
// at their reports' arrival.
TEST(JobHistory, AWallClockStepCountsNeitherAsNodeHoursNorAsStalls) {
  JobHistory history;
  constexpr double kMono = 500.0;
  history.tick(kT, kMono);
  history.resize(7, resize(kT, ResizeKind::admit, {"n1", "n2"}));
  history.nodes(7, kAlice, "alice", 2, kT);
  history.tick(kT + 10, kMono + 10);
  history.progress(7, {kT + 10, 1000.0, 2});
  // 20 s later by the monotonic clock, the wall clock reads an hour and 20 s later.
  history.tick(kT + 3620, kMono + 30);
  history.resize(7, resize(kT + 3620, ResizeKind::reclaim, {"n1"}));
  history.nodes(7, kAlice, "alice", 1, kT + 3620);
  history.tick(kT + 3622, kMono + 32);
  history.progress(7, {kT + 32, 1100.0, 1});  // the training's clock did not step
  // And back: 10 s later the wall clock reads 50 s after the start.
  history.tick(kT + 50, kMono + 42);
  history.resize(7, resize(kT + 50, ResizeKind::grow, {"n1", "n2"}));
  history.nodes(7, kAlice, "alice", 2, kT + 50);
  history.tick(kT + 51, kMono + 43);
  history.progress(7, {kT + 51, 1200.0, 2});
  history.tick(kT + 60, kMono + 52);
  const JobRecord* job = history.find(7);
  ASSERT_NE(job, nullptr);
  const double now = history.steady(kT + 60);
  EXPECT_DOUBLE_EQ(now, kT + 52);
  EXPECT_DOUBLE_EQ(resize_lost_s(*job, now), 3.0);  // 2 s after the reclaim, 1 s after the grow
  // 2 nodes for 30 s, 1 node for 12 s, 2 nodes for 10 s.
  EXPECT_DOUBLE_EQ(node_hours(*job, now), (60.0 + 12.0 + 20.0) / 3600.0);
  for (const ProgressPoint& point : job->progress) EXPECT_LE(point.time, now);
}

TEST(JobHistory, NodeHoursAndTimeLostToResizes) {
  JobHistory history;
  history.resize(7, resize(kT, ResizeKind::admit, {"n1"}));
  history.nodes(7, kAlice, "alice", 1, kT);
  history.progress(7, {kT + 10, 1000.0, 1});
  // A grow to 3 nodes at +100: the training makes no progress until +130.
  history.resize(7, resize(kT + 100, ResizeKind::grow, {"n1", "n2", "n3"}));
  history.nodes(7, kAlice, "alice", 3, kT + 100);
  history.progress(7, {kT + 120, 1000.0, 1});
  history.progress(7, {kT + 130, 1500.0, 3});
  const JobRecord* job = history.find(7);
  ASSERT_NE(job, nullptr);
  EXPECT_DOUBLE_EQ(resize_lost_s(*job, kT + 200), 30.0);
  // 1 node for 100 s, then 3 nodes for 260 s: 880 node-seconds.
  EXPECT_DOUBLE_EQ(node_hours(*job, kT + 360), 880.0 / 3600.0);
  // A stall still on counts up to now; the end closes the node-hours.
  history.resize(7, resize(kT + 300, ResizeKind::reclaim, {"n1"}));
  history.nodes(7, kAlice, "alice", 1, kT + 300);
  EXPECT_DOUBLE_EQ(resize_lost_s(*history.find(7), kT + 340), 70.0);
  history.ended(7, kT + 400);
  EXPECT_DOUBLE_EQ(node_hours(*history.find(7), kT + 9999), (100 + 3 * 200 + 100) / 3600.0);
  EXPECT_DOUBLE_EQ(resize_lost_s(*history.find(7), kT + 9999), 130.0);
  EXPECT_EQ(history.find(7)->nodes_over_time.back().nodes, 0);
}

TEST(JobHistory, OnlyTheLastEndedJobsAreKept) {
  JobHistory history({.jobs_kept = 2, .points_per_job = 100});
  for (std::uint32_t id = 1; id <= 4; ++id) history.nodes(id, kAlice, "alice", 1, kT);
  history.ended(2, kT + 1);
  history.ended(1, kT + 2);
  history.ended(3, kT + 3);
  EXPECT_EQ(history.find(2), nullptr);  // ended first, forgotten
  EXPECT_NE(history.find(1), nullptr);
  EXPECT_NE(history.find(3), nullptr);
  EXPECT_NE(history.find(4), nullptr);  // running: always kept
  history.set_limits({.jobs_kept = 0, .points_per_job = 100});
  EXPECT_EQ(history.records().size(), 1u);
}

TEST(JobHistory, ARequeuedJobThatComesBackContinuesItsHistory) {
  JobHistory history({.jobs_kept = 1, .points_per_job = 100});
  history.nodes(7, kAlice, "alice", 2, kT);
  history.resize(7, resize(kT + 100, ResizeKind::requeue, {}));
  history.ended(7, kT + 100);  // gaptrain no longer sees it running
  history.resize(7, resize(kT + 200, ResizeKind::admit, {"n1"}));
  history.nodes(7, kAlice, "alice", 1, kT + 200);
  history.nodes(8, kBob, "bob", 1, kT + 200);
  history.ended(8, kT + 300);
  history.ended(9, kT + 300);  // never seen: nothing to keep
  const JobRecord* job = history.find(7);
  ASSERT_NE(job, nullptr);  // running again, never forgotten for the ended job 8
  EXPECT_FALSE(job->ended_at);
  EXPECT_EQ(job->resizes.size(), 2u);
  EXPECT_DOUBLE_EQ(node_hours(*job, kT + 300), (2 * 100 + 100) / 3600.0);
  EXPECT_EQ(history.find(9), nullptr);
}

TEST(JobHistory, OldProgressIsThinnedTheRecentKeptWhole) {
  JobHistory history({.jobs_kept = 10, .points_per_job = 100});
  for (int i = 0; i < 1000; ++i) history.progress(9, {kT + i, 10.0 * i, 2});
  const std::deque<ProgressPoint>& points = history.find(9)->progress;
  EXPECT_LE(points.size(), 100u);
  EXPECT_GE(points.size(), 50u);
  EXPECT_DOUBLE_EQ(points.front().time, kT);  // the series still spans the whole job
  // The last 25 reports are all there, one a second.
  for (std::size_t i = points.size() - 25; i < points.size(); ++i) {
    EXPECT_DOUBLE_EQ(points[i].time, kT + 999 - static_cast<double>(points.size() - 1 - i));
  }
  // A repeated report is not kept twice.
  const std::size_t before = points.size();
  history.progress(9, {kT + 999, 9990.0, 2});
  EXPECT_EQ(history.find(9)->progress.size(), before);
}

TEST(JobHistory, TheViewCarriesEveryField) {
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

TEST(JobHistory, TheViewCarriesTheBatchRangeAndNoiseScale) {
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

TEST(JobHistory, PrivateDataJobsShowsAJobToItsOwnerRootAndSlurmUserOnly) {
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
TEST(JobHistory, AJobWithoutProgressLosesNoTimeToResizes) {
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
TEST(JobHistory, TheCommandSummarisesAndPlotsTheView) {
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
}  // namespace gaptrain::daemon
