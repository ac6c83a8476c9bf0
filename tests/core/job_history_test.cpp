#include "core/job_history.hpp"

#include <gtest/gtest.h>
#include <json/json.h>

#include <string>

namespace gaptrain::core::job_history_test {
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

}  // namespace
}  // namespace gaptrain::core::job_history_test
