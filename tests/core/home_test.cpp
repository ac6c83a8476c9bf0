// The home mode (core/home.hpp): the snapshot as the core sees it, the mark that carries where a
// job at home trains, and the plan for such a job (paused, never requeued).
#include "core/home.hpp"

#include <gtest/gtest.h>

#include "core/job_mark.hpp"
#include "core/planner.hpp"
#include "planner_world.hpp"

namespace gaptrain::core::home_test {
namespace {

using namespace planner_world;

TEST(JobMark, WhereAJobAtHomeTrainsAndItsGresAreReadBack) {
  const JobMark mark{.time_limit_minutes = 60,
                     .min_nodes = 1,
                     .max_nodes = 4,
                     .trains_in = "gpu",
                     .tres_per_node = "gres/gpu:2,gres/nic:1"};
  const std::string written = with_job_mark("site-note", mark);
  EXPECT_EQ(written,
            "site-note gaptrain:limit=60,nodes=1-4,trains_in=gpu,tres=gres/gpu:2+gres/nic:1");
  EXPECT_EQ(read_job_mark(written), mark);
}

// A snapshot with home node h1 (partition "home") beside n1..n3 (partition "elastic").
Snapshot with_home_node() {
  Snapshot s = cluster(3, {"n2"});
  s.nodes.push_back({"h1", NodeState::allocated, kNow - 600});
  s.partitions = {{"home", {"h1"}, 1}, {"elastic", {"n1", "n2", "n3"}, 1}};
  return s;
}

TEST(Home, AJobMovedHomeIsSeenInThePartitionItTrainsInHoldingNoNodeOfItsOwn) {
  Snapshot s = with_home_node();
  Job job;
  job.id = 7;
  job.state = JobState::running;
  job.partition = "home";
  job.nodes = {"h1"};
  job.batch_host = "h1";
  job.admin_comment = "gaptrain:limit=60,nodes=1-4,trains_in=elastic,tres=gres/gpu:2";
  s.jobs.push_back(job);
  Job other = job;  // the site's own job on the home node: not gaptraind's
  other.id = 8;
  other.admin_comment.clear();
  s.jobs.push_back(other);

  see_home(s, "home");
  EXPECT_TRUE(s.jobs[0].at_home);
  EXPECT_EQ(s.jobs[0].partition, "elastic");
  EXPECT_TRUE(s.jobs[0].nodes.empty());
  EXPECT_EQ(s.jobs[0].batch_host, "h1");
  EXPECT_EQ(s.jobs[0].tres_per_node, "gres/gpu:2");
  EXPECT_FALSE(s.jobs[1].at_home);
  EXPECT_EQ(s.jobs[1].partition, "home");
  // The home node is nobody's hole.
  for (const Hole& hole : find_holes(s)) EXPECT_NE(hole.node, "h1");
  EXPECT_EQ(s.nodes.size(), 3U);
}

TEST(Home, WithoutAHomePartitionNothingChanges) {
  Snapshot s = with_home_node();
  Job job;
  job.id = 7;
  job.partition = "home";
  job.admin_comment = "gaptrain:trains_in=elastic";
  s.jobs.push_back(job);
  see_home(s, "");
  EXPECT_FALSE(s.jobs[0].at_home);
  EXPECT_EQ(s.nodes.size(), 4U);
}

// Job 7 at home trains on satellites n1, n2; regular job 42 needs both.
ElasticJob at_home_on_two(Snapshot& s, int min_nodes) {
  // A named list, not a braced temporary: GCC 16 warns of a free of the temporary's storage
  // (free-nonheap-object) where elastic_job is inlined, a false positive.
  const Nodes nodes = {"n1", "n2"};
  ElasticJob job = elastic_job(s, 7, nodes, min_nodes, 3);
  job.at_home = true;
  job.batch_host = "h1";
  job.satellites = {{"n1", 70}, {"n2", 71}};
  s.jobs.back().batch_host = "h1";
  s.jobs.back().at_home = true;
  return job;
}

void regular_job_waiting_for(Snapshot& s, const Nodes& nodes) {
  Job job;
  job.id = 42;
  job.state = JobState::pending;
  job.partition = "regular";
  job.start_time = kNow + 240;
  job.sched_nodes = nodes;
  s.jobs.push_back(job);
}

TEST(Home, AJobAtHomeThatLosesEveryNodeIsPausedNotRequeued) {
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = at_home_on_two(s, 1);
  regular_job_waiting_for(s, {"n1", "n2"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::shrink);
  EXPECT_TRUE(p.actions[0].nodes.empty());
  EXPECT_EQ(p.actions[0].drain, (Nodes{"n1", "n2"}));
}

TEST(Home, AJobAtHomeBelowItsMinimumLetsGoOfEveryNode) {
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = at_home_on_two(s, 2);
  regular_job_waiting_for(s, {"n2"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::shrink);
  EXPECT_TRUE(p.actions[0].nodes.empty());
  EXPECT_EQ(p.actions[0].drain.size(), 2U);
}

TEST(Home, APausedJobAtHomeGrowsBackIntoHolesNotAdmittedAgain) {
  Snapshot s = cluster(2, {});
  ElasticJob job = at_home_on_two(s, 1);
  job.nodes.clear();
  job.satellites.clear();
  s.jobs.back().nodes.clear();
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::grow);
  EXPECT_EQ(p.actions[0].nodes.size(), 2U);
}

}  // namespace
}  // namespace gaptrain::core::home_test
