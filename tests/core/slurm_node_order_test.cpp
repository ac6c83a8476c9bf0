// Elastic jobs take the idle nodes Slurm offers regular jobs last (core/slurm_node_order.hpp),
// so that a regular job lands where it would without them.
#include "core/slurm_node_order.hpp"

#include <gtest/gtest.h>

#include "core/planner.hpp"
#include "planner_world.hpp"

namespace gaptrain::core::slurm_node_order_test {
namespace {

using namespace planner_world;

TEST(SlurmNodeOrder, LastInSlurmConfFirst) {
  const SlurmNodeOrder order(cluster(4, {}));
  EXPECT_EQ(order.last_offered_first({"n2", "n4", "n1", "n3"}), (Nodes{"n4", "n3", "n2", "n1"}));
}

TEST(SlurmNodeOrder, HeavierNodesBeforeLaterOnes) {
  Snapshot s = cluster(4, {});
  s.nodes[0].weight = 10;  // n1: Slurm offers it after every node of weight 1
  const SlurmNodeOrder order(s);
  EXPECT_EQ(order.last_offered_first({"n1", "n2", "n3", "n4"}), (Nodes{"n1", "n4", "n3", "n2"}));
}

TEST(SlurmNodeOrder, NodesTheSnapshotDoesNotKnowGoLastAsGiven) {
  const SlurmNodeOrder order(cluster(2, {}));
  EXPECT_EQ(order.last_offered_first({"x9", "n1", "x2", "n2"}), (Nodes{"n2", "n1", "x9", "x2"}));
}

// n1 busy, n2..n5 idle: a job that grows by two takes n4 and n5, leaving n2 and n3 to the next
// regular job, which Slurm would have placed there anyway.
TEST(SlurmNodeOrder, AJobGrowsIntoTheNodesSlurmOffersLast) {
  Snapshot s = cluster(5, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 3);
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  ASSERT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->nodes, (Nodes{"n5", "n4"}));
}

TEST(SlurmNodeOrder, AJobGrowsIntoHeavyNodesFirst) {
  Snapshot s = cluster(5, {"n1"});
  s.nodes[1].weight = 5;  // n2
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 2);
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->nodes, (Nodes{"n2"}));
}

// A job above its maximum (an admin lowered it) gives back the nodes Slurm offers first.
TEST(SlurmNodeOrder, AShrinkingJobGivesBackTheNodesSlurmOffersFirst) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 2);
  for (const char* node : {"n2", "n3", "n4"}) job.satellites[node] = 100;
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* shrink = action_for(p, 7);
  ASSERT_NE(shrink, nullptr);
  ASSERT_EQ(shrink->kind, ActionKind::shrink);
  EXPECT_EQ(shrink->nodes, (Nodes{"n1", "n4"}));  // the batch host stays, then the last offered
}

// Two jobs at home (every node a satellite) fill the cluster; a 2-node regular job arrives. It
// gets n1 and n2, where Slurm would have placed it on the empty cluster, although job 8 (the
// second listed) holds them.
TEST(SlurmNodeOrder, AReclaimGivesTheNodesSlurmOffersFirst) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  ElasticJob first = elastic_job(s, 7, {"n3", "n4"}, 1, 4);
  ElasticJob second = elastic_job(s, 8, {"n2", "n1"}, 1, 4);
  std::uint32_t satellite = 70;
  for (ElasticJob* job : {&first, &second}) {
    job->batch_host.clear();  // at home: the batch script runs on the home node
    job->at_home = true;
    for (const std::string& node : job->nodes) job->satellites[node] = satellite++;
  }
  Job regular;
  regular.id = 42;
  regular.state = JobState::pending;
  regular.partition = "regular";
  regular.min_nodes = 2;
  regular.reason = PendingReason::resources;
  s.jobs.push_back(regular);
  const Reclaim reclaim = nodes_to_reclaim(s, {first, second}, ElasticPartitions("elastic"));
  EXPECT_EQ(reclaim.nodes,
            (std::vector<std::pair<std::string, std::uint32_t>>{{"n1", 42}, {"n2", 42}}));
}

}  // namespace
}  // namespace gaptrain::core::slurm_node_order_test
