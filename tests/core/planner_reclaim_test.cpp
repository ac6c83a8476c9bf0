// The planner's reclaims (planner.hpp, nodes_to_reclaim): a regular job that waits for the
// nodes elastic jobs hold gets them, at once or when its backfill plan comes due, a batch host
// swapped or its job requeued, in Slurm's order of the waiting jobs; idle nodes serve first.
#include <gtest/gtest.h>

#include "core/planner.hpp"
#include "planner_world.hpp"

namespace gaptrain::core::planner_reclaim_test {
namespace {

using namespace planner_world;

TEST(Planner, APlannedBatchHostIsSwappedForAnotherElasticNode) {
  // Backfill planned job 42 on n1 (job 7's batch host) and n3: job 42 gets n3 and, instead of
  // the batch host, a satellite of job 7 (n4) before a node of job 8's own (n5).
  Snapshot s = cluster(6, {"n1", "n2", "n3", "n4", "n5", "n6"});
  ElasticJob seven = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  seven.satellites = {{"n4", 100}};
  const ElasticJob eight = elastic_job(s, 8, {"n6", "n5"}, 1, 4);
  add_pending_regular(s, 42, kNow + 240, {"n1", "n3"});
  const auto reclaim = nodes_to_reclaim(s, {seven, eight}, "elastic").nodes;
  EXPECT_EQ(reclaim, (std::vector<std::pair<std::string, std::uint32_t>>{{"n3", 42}, {"n4", 42}}));
  const Plan p = plan(s, find_holes(s), {seven, eight}, kNow, {});
  ASSERT_FALSE(p.actions.empty());
  EXPECT_EQ(p.actions[0].kind, ActionKind::shrink);
  EXPECT_EQ(p.actions[0].nodes, (Nodes{"n1", "n2"}));
}

TEST(Planner, LosingTheBatchHostRequeuesTheJob) {
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2"}, 1, 2);
  add_pending_regular(s, 42, kNow + 240, {"n1", "n2"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::requeue);
  EXPECT_EQ(p.actions[0].drain, (Nodes{"n1", "n2"}));
  EXPECT_TRUE(p.actions[0].nodes.empty());
}

TEST(Planner, FallingBelowTheMinimumRequeuesTheJob) {
  Snapshot s = cluster(3, {"n1", "n2", "n3"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3"}, 3, 3);
  add_pending_regular(s, 42, kNow + 240, {"n3"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::requeue);
}

TEST(Planner, AJobWaitingOnTheLastOfSeveralLeasesGetsAllItsPlannedNodes) {
  // Job 42 needs n3 (job 7's own node, lease ends in 240 s) and n4 (a satellite of job 7 whose
  // lease ends in 300 s): it starts when the later ends, so both are taken now.
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  ElasticJob seven = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  seven.satellites = {{"n4", 100}};
  Job satellite;
  satellite.id = 100;
  satellite.name = satellite_name(7);
  satellite.state = JobState::running;
  satellite.nodes = {"n4"};
  satellite.end_time = kNow + 300;
  s.jobs.push_back(satellite);
  add_pending_regular(s, 42, kNow + 300, {"n3", "n4"});
  EXPECT_EQ(nodes_to_reclaim(s, {seven}, "elastic").nodes,
            (std::vector<std::pair<std::string, std::uint32_t>>{{"n3", 42}, {"n4", 42}}));
  // Nodes already on their way to job 42 (a drain in flight): nothing more.
  EXPECT_TRUE(nodes_to_reclaim(s, {seven}, "elastic", {42}).nodes.empty());
}

TEST(Planner, IdleNodesServeAWaitingJobBeforeElasticOnes) {
  // Job 42 needs 3 nodes; backfill planned it on n1..n3, all job 7's, but n5 and n6 are idle:
  // only one elastic node is taken, and not the batch host.
  Snapshot s = cluster(6, {"n1", "n2", "n3", "n4"});
  const ElasticJob seven = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  add_pending_regular(s, 42, kNow + 240, {"n1", "n2", "n3"});
  const Reclaim reclaim = nodes_to_reclaim(s, {seven}, "elastic");
  EXPECT_EQ(reclaim.nodes, (std::vector<std::pair<std::string, std::uint32_t>>{{"n2", 42}}));
  EXPECT_EQ(kept_nodes(reclaim), (std::set<std::string>{"n5", "n6"}));
}

TEST(Planner, AJobPlannedAfterTheLeaseWaitsForSomethingElse) {
  // Job 42 starts after the elastic job's time limit: the elastic lease is not what delays it,
  // so nothing is taken back now.
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2"}, 1, 2);
  add_pending_regular(s, 42, kNow + 3600, {"n2"});
  EXPECT_TRUE(nodes_to_reclaim(s, {job}, "elastic").nodes.empty());
}

TEST(Planner, APlanAtAnUnleasedJobsOwnLimitIsNotDueAtTheLease) {
  // Job 7 was started by Slurm itself with its own 30-minute limit; gaptraind leases it this
  // poll. Backfill planned job 42 at that limit: it waits for the 30 minutes, not for a lease,
  // and taking n2 now would requeue job 7 half an hour early (elastic.satellites_preempted on
  // 24.11, once). Without a horizon the old rule takes it.
  Snapshot s = cluster(2, {"n2"});
  const ElasticJob job = elastic_job(s, 7, {"n2"}, 1, 2);
  s.jobs.back().end_time = kNow + 1800;
  add_pending_regular(s, 42, kNow + 1800, {"n1", "n2"});
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic").nodes.size(), 1U);
  EXPECT_TRUE(nodes_to_reclaim(s, {job}, "elastic", {}, {}, kNow + 360).nodes.empty());
  // Leased: planned at the lease's end, it waits for that lease.
  s.jobs[0].end_time = kNow + 300;    // job 7
  s.jobs[1].start_time = kNow + 300;  // job 42
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic", {}, {}, kNow + 360).nodes.size(), 1U);
}

TEST(Planner, AJobThatWouldStartWithoutTheElasticJobsGetsTheirNodesAtOnce) {
  // Job 42 needs 2 nodes and waits for resources; the elastic job holds all 4. Backfill has
  // no plan for it on the elastic nodes (their lease is long): it still gets two non-batch
  // nodes now, and the allocator does not grow back into them.
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  add_waiting_regular(s, 42, 2);
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::shrink);
  EXPECT_EQ(p.actions[0].nodes, (Nodes{"n1", "n4"}));
  EXPECT_EQ(p.actions[0].drain, (Nodes{"n2", "n3"}));
  EXPECT_EQ(p.actions[0].waiting_job, 42U);
}

TEST(Planner, OnlyNodesOfTheWaitingJobsPartitionAreTaken) {
  // The elastic job holds n1..n3 of partition "cpu"; job 42 of partition "gpu" (g1, busy)
  // would not start on them: nothing is taken. Job 43 may use both partitions: it gets one.
  Snapshot s = cluster(3, {"n1", "n2", "n3"});
  s.nodes.push_back({"g1", NodeState::allocated, kNow});
  s.partitions = {{"cpu", {"n1", "n2", "n3"}}, {"gpu", {"g1"}}, {"elastic", {"n1", "n2", "n3"}}};
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3"}, 1, 3);
  add_waiting_regular(s, 42, 1, 200).partition = "gpu";
  EXPECT_TRUE(nodes_to_reclaim(s, {job}, "elastic").nodes.empty());
  add_waiting_regular(s, 43, 1, 100).partition = "gpu,cpu";
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic").nodes,
            (std::vector<std::pair<std::string, std::uint32_t>>{{"n2", 43}}));
}

TEST(Planner, AJobHeldBackByOtherThanNodesTakesNothing) {
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2"}, 1, 2);
  add_waiting_regular(s, 42, 1).reason = PendingReason::other;  // a dependency, say
  EXPECT_TRUE(nodes_to_reclaim(s, {job}, "elastic").nodes.empty());
}

TEST(Planner, HigherPriorityJobsAreServedFirst) {
  // One node besides the batch host: the higher-priority job 42 gets it; job 41 (lower
  // priority, submitted earlier) needs the batch host, so the elastic job is requeued.
  Snapshot s = cluster(2, {"n1", "n2"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2"}, 1, 2);
  add_waiting_regular(s, 41, 1, 100);
  add_waiting_regular(s, 42, 1, 200);
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic").nodes,
            (std::vector<std::pair<std::string, std::uint32_t>>{{"n2", 42}, {"n1", 41}}));
}

TEST(Planner, JobsBehindOneThatWouldNotStartTakeNoElasticNodes) {
  // The elastic job holds all 4 nodes. Job 42 (2 nodes) would start on two satellites; job 41
  // (3 nodes) would not start even then, so Slurm's main scheduler starts nothing after it in
  // its partition: job 40 (1 node) gets nothing, where it took n4 for a start that would not
  // come. Job 39 of another partition is not behind job 41: it gets n4 (not the batch host n1,
  // a requeue, as when job 40 had n4).
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  add_waiting_regular(s, 42, 2, 300);
  add_waiting_regular(s, 41, 3, 200);
  add_waiting_regular(s, 40, 1, 100);
  using Taken = std::vector<std::pair<std::string, std::uint32_t>>;
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic").nodes, (Taken{{"n2", 42}, {"n3", 42}}));
  s.partitions = {{"regular", {"n1", "n2", "n3", "n4"}},
                  {"other", {"n1", "n2", "n3", "n4"}},
                  {"elastic", {"n1", "n2", "n3", "n4"}}};
  add_waiting_regular(s, 39, 1, 50).partition = "other";
  EXPECT_EQ(nodes_to_reclaim(s, {job}, "elastic").nodes,
            (Taken{{"n2", 42}, {"n3", 42}, {"n4", 39}}));
}

TEST(Planner, IdleNodesAJobWillStartOnAreNotGrownInto) {
  // Job 42 (2 nodes) fits in the idle n2..n4: Slurm starts it at its next pass, so the
  // elastic job grows only into the third idle node.
  Snapshot s = cluster(4, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 4);
  add_waiting_regular(s, 42, 2);
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->nodes, (Nodes{"n4"}));
}

TEST(Planner, AJobThatFitsInIdleNodesButIsPlannedLaterIsLeftToSlurm) {
  // Backfill plans job 42 in an hour although two nodes are idle: it waits for something a
  // node count does not see (a feature, memory). Its idle nodes stay holes.
  Snapshot s = cluster(3, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 3);
  Job& waiting = add_waiting_regular(s, 42, 2);
  waiting.start_time = kNow + 3600;
  waiting.sched_nodes = {"n2", "n3"};
  const Reclaim reclaim = nodes_to_reclaim(s, {job}, "elastic");
  EXPECT_TRUE(reclaim.nodes.empty());
  EXPECT_TRUE(reclaim.kept_idle.empty());
}

}  // namespace
}  // namespace gaptrain::core::planner_reclaim_test
