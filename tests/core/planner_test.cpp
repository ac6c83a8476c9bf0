#include "core/planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "planner_world.hpp"

namespace gaptrain::core::planner_test {
namespace {

using namespace planner_world;

TEST(Planner, NothingToDoWithoutElasticJobs) {
  const Snapshot s = cluster(4, {});
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  EXPECT_TRUE(p.actions.empty());
  EXPECT_FALSE(p.allocation.has_value());
}

TEST(Planner, AJobGrowsIntoLongHoles) {
  Snapshot s = cluster(4, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 4);
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_TRUE(p.allocation.has_value());
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->nodes, (Nodes{"n4", "n3", "n2"}));  // Slurm offers n4 last
  EXPECT_EQ(grow->reason, "allocator");
}

TEST(Planner, AJobWithABatchRangeIsValuedAtItsGoodput) {
  // Four nodes add 1% samples at the job's own batch (the all-reduce eats the rest): not worth a
  // 10 s grow. With a batch range and much gradient noise, a 4-node batch of 4096 amortizes the
  // all-reduce: the grow pays.
  Snapshot s = cluster(4, {"n1"});
  ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 4);
  job.curve = ScalingCurve({{1, 100.0}, {4, 101.0}});
  EXPECT_EQ(action_for(plan(s, find_holes(s), {job}, kNow, {}), 7), nullptr);
  job.given.batch = BatchRange{32, 4096, 1024};
  job.given.noise_scale = 1e6;
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
}

TEST(Planner, AHoleShorterThanTheGrowCostIsLeftAlone) {
  // Backfill plans a regular job on n2..n4 in 5 s: growing (10 s) would only lose progress.
  Snapshot s = cluster(4, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 4);
  add_pending_regular(s, 42, kNow + 5, {"n2", "n3", "n4"});
  for (Node& node : s.nodes)
    if (node.name != "n1") node.state = NodeState::planned;
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  EXPECT_EQ(action_for(p, 7), nullptr);
}

TEST(Planner, ARegularJobWaitingOnAnElasticLeaseGetsItsNodesAtOnce) {
  // Job 42 needs n3, n4; backfill plans it at the elastic job's lease end. The elastic job
  // keeps its batch host and shrinks to n1, n2 now, and the allocator does not give n3/n4 back.
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  add_pending_regular(s, 42, kNow + 240, {"n3", "n4"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_FALSE(p.actions.empty());
  const Action& first = p.actions.front();
  EXPECT_EQ(first.kind, ActionKind::shrink);
  EXPECT_EQ(first.job_id, 7U);
  EXPECT_EQ(first.nodes, (Nodes{"n1", "n2"}));
  EXPECT_EQ(first.drain, (Nodes{"n3", "n4"}));
  EXPECT_EQ(first.reason, "regular job 42 waits for its nodes");
  for (const Action& a : p.actions) {
    if (a.kind != ActionKind::grow) continue;
    for (const std::string& node : a.nodes) EXPECT_TRUE(node != "n3" && node != "n4") << node;
  }
}

// A job that runs only at 2, 4 or 8 nodes, on 4, loses one to a regular job: it keeps 2 (its
// batch host first) and lets the fourth go at once with the one taken, not a poll later.
TEST(Planner, AReclaimLeavesAJobAtItsNextAllowedCountDown) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 2, 8);
  job.given.allowed_sizes = {2, 4, 8};
  job.satellites = {{"n3", 70}, {"n4", 71}};
  add_pending_regular(s, 42, kNow + 240, {"n2"});
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  ASSERT_FALSE(p.actions.empty());
  const Action& first = p.actions.front();
  EXPECT_EQ(first.kind, ActionKind::shrink);
  EXPECT_EQ(first.nodes.size(), 2U);
  EXPECT_EQ(first.nodes.front(), "n1");
  EXPECT_EQ(first.drain.size(), 2U);
  // With every count allowed it keeps 3.
  job.given.allowed_sizes.clear();
  EXPECT_EQ(plan(s, find_holes(s), {job}, kNow, {}).actions.front().nodes.size(), 3U);
  // Below its smallest count it cannot run: a requeue.
  job.given.allowed_sizes = {4, 8};
  job.given.min_nodes = 4;
  EXPECT_EQ(plan(s, find_holes(s), {job}, kNow, {}).actions.front().kind, ActionKind::requeue);
}

// The allocator gives a job that runs only at even counts an even count.
TEST(Planner, AJobGrowsOnlyToAnAllowedCount) {
  Snapshot s = cluster(5, {"n1", "n2"});
  ElasticJob job = elastic_job(s, 7, {"n1", "n2"}, 2, 8);
  job.given.allowed_sizes = {2, 4, 6, 8};
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->nodes.size(), 2U);  // to 4: five nodes hold no even count above it
}

// Node types: n1-n3 are v100, n4-n6 a100. A new job with a curve on each type is
// admitted on the faster one, all its nodes of one type; a job holding v100 nodes grows there.
TEST(Planner, AJobRunsOnOneNodeTypeTheFasterWhenItChooses) {
  Snapshot s = cluster(6, {"n1"});
  for (Node& node : s.nodes) node.type = node.name <= "n3" ? "v100" : "a100";
  ElasticJob held = elastic_job(s, 7, {"n1"}, 1, 2);
  held.curves["v100"].curve = ScalingCurve({{1, 50.0}, {2, 100.0}});
  held.curves["v100"].source = Source::given;
  held.curves["a100"].curve = ScalingCurve({{1, 100.0}, {2, 200.0}});
  held.curves["a100"].source = Source::given;
  held.held_type = "v100";
  PlannerSettings settings;
  const Plan p = plan(s, find_holes(s), {held}, kNow, settings);
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  ASSERT_EQ(grow->nodes.size(), 1U);
  EXPECT_LE(grow->nodes.front(), "n3") << "grew onto another type: " << grow->nodes.front();
  // Without its v100 curve it cannot hold v100 nodes: set aside, naming the type.
  held.curves.erase("v100");
  const Plan refused = plan(s, find_holes(s), {held}, kNow, settings);
  ASSERT_EQ(refused.set_aside.size(), 1U);
  EXPECT_NE(refused.set_aside.front().second.find("v100"), std::string::npos)
      << refused.set_aside.front().second;
}

// A held job of the elastic partition (sbatch --hold -p elastic -N 1-4).
Job& add_held_elastic(Snapshot& s, std::uint32_t id) {
  Job& job = add_pending(s, id, "elastic");
  job.held = true;
  job.min_nodes = 1;
  job.max_nodes = 4;
  job.eligible_time = kNow - 10;
  return job;
}

// Node types: a job submitted with --constraint="[a100|v100]" is admitted on one of
// those types only; a feature that is no node's type is not a type.
// A job that may mix types (--elastic-mix-types) holds nodes of two types without being set aside
// and grows onto both; without the flag the same job is set aside.
TEST(Planner, AJobThatMixesTypesGrowsOntoEveryType) {
  Snapshot s = cluster(4, {"n1", "n3"});
  for (Node& node : s.nodes) node.type = node.name <= "n2" ? "a100" : "v100";
  ElasticJob job = elastic_job(s, 7, {"n1", "n3"}, 1, 4);
  job.given.mix_types = true;
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  EXPECT_TRUE(p.set_aside.empty());
  const Action* grow = action_for(p, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  Nodes grown = grow->nodes;
  std::sort(grown.begin(), grown.end());
  EXPECT_EQ(grown, (Nodes{"n2", "n4"}));  // the free a100 and the free v100
  job.given.mix_types = false;
  EXPECT_EQ(plan(s, find_holes(s), {job}, kNow, {}).set_aside.size(), 1U);
}

TEST(Planner, AJobIsAdmittedOnANodeTypeItsConstraintNames) {
  Snapshot s = cluster(4, {});
  for (Node& node : s.nodes) node.type = node.name == "n4" ? "a100" : "cpu";
  add_held_elastic(s, 7).features = "[a100|ib]";
  const std::vector<ElasticJob> candidates = admission_candidates(s, "elastic");
  ASSERT_EQ(candidates.size(), 1U);
  EXPECT_EQ(candidates[0].curves.size(), 1U);
  EXPECT_TRUE(candidates[0].curves.contains("a100"));
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  const Action* admit = action_for(p, 7);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->nodes, Nodes{"n4"});
}

TEST(Planner, HeldElasticJobsAreAdmittedUnlessTheirOwnBeginTimeIsAhead) {
  Snapshot s = cluster(4, {});
  add_held_elastic(s, 7);
  Plan p = plan(s, find_holes(s), {}, kNow, {});
  const Action* admit = action_for(p, 7);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->kind, ActionKind::admit);
  EXPECT_EQ(admit->nodes.size(), 1U);  // its batch host; it grows as satellites once it runs

  s.jobs.back().eligible_time = kNow + 600;  // sbatch --begin=now+10minutes
  EXPECT_TRUE(plan(s, find_holes(s), {}, kNow, {}).actions.empty());
  s.jobs.back().requeued = true;  // the 2 minutes Slurm gives a requeued job: not waited for
  p = plan(s, find_holes(s), {}, kNow, {});
  ASSERT_NE(action_for(p, 7), nullptr);
}

// A job that runs on no fewer than 3 nodes (-N 3-4) is started on 3: admitted on one, it would
// run below its minimum until grown (the simulator, running this planner, found it).
TEST(Planner, AHeldJobIsAdmittedOnItsMinimumBatchHostFirst) {
  Snapshot s = cluster(4, {});
  add_held_elastic(s, 7).min_nodes = 3;
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  const Action* admit = action_for(p, 7);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->kind, ActionKind::admit);
  EXPECT_EQ(admit->nodes.size(), 3U);
}

// One job's bad input (here a negative rescale cost; once a learned curve with a 1-node rate of
// 0, which threw out of the poll timer and ended gaptraind, and which no curve holds now) sets
// that job aside, keeping its nodes; the other jobs are still planned.
TEST(Planner, AJobWithBadInputIsSetAsideAndTheOthersArePlanned) {
  Snapshot s = cluster(6, {"n1", "n2"});
  ElasticJob bad = elastic_job(s, 7, {"n1"}, 1, 4);
  bad.down_cost_s = -1.0;
  const ElasticJob good = elastic_job(s, 8, {"n2"}, 1, 4);
  const Plan p = plan(s, find_holes(s), {bad, good}, kNow, {});
  ASSERT_EQ(p.set_aside.size(), 1U);
  EXPECT_EQ(p.set_aside.front().first, 7U);
  EXPECT_NE(p.set_aside.front().second.find("job 7.down_cost_s"), std::string::npos)
      << p.set_aside.front().second;
  EXPECT_EQ(action_for(p, 7), nullptr);
  const Action* grow = action_for(p, 8);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->nodes.size(), 3U);  // n3..n5 or so: never n1, which job 7 keeps
  EXPECT_EQ(std::count(grow->nodes.begin(), grow->nodes.end(), "n1"), 0);
}

// A held job asking for 2^31-1 nodes is admitted for what the cluster has (the assumed curve
// once doubled past 2^30 forever).
TEST(Planner, AHeldJobAskingForMoreNodesThanTheClusterHasIsAdmittedForAllOfThem) {
  Snapshot s = cluster(4, {});
  add_held_elastic(s, 7).max_nodes = 2'147'483'647;
  const std::vector<ElasticJob> candidates = admission_candidates(s, "elastic");
  ASSERT_EQ(candidates.size(), 1U);
  EXPECT_EQ(candidates.front().given.max_nodes, 4);
  EXPECT_EQ(candidates.front().curve.points().back().nodes, 4);
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  const Action* admit = action_for(p, 7);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->kind, ActionKind::admit);
}

TEST(Planner, AJobIsAdmittedOnItsLongestHoleWithALeaseThatEndsBeforeIt) {
  // n1..n3 are planned for job 42 in 10 minutes, n4 has no end in sight: the batch host goes
  // there. A later grow into n1..n3 carries their end, for a lease that ends before it.
  Snapshot s = cluster(4, {});
  add_pending_regular(s, 42, kNow + 600, {"n1", "n2", "n3"});
  for (Node& node : s.nodes)
    if (node.name != "n4") node.state = NodeState::planned;
  add_held_elastic(s, 7);
  const Plan admitted = plan(s, find_holes(s), {}, kNow, {});
  const Action* admit = action_for(admitted, 7);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->nodes, (Nodes{"n4"}));
  EXPECT_EQ(admit->hole_end, 0);

  s.jobs.pop_back();
  s.nodes[3].state = NodeState::allocated;
  const ElasticJob running = elastic_job(s, 7, {"n4"}, 1, 4);
  const Plan grown = plan(s, find_holes(s), {running}, kNow, {});
  const Action* grow = action_for(grown, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->kind, ActionKind::grow);
  EXPECT_EQ(grow->hole_end, kNow + 600);
}

TEST(Planner, TheIdleReserveKeepsTheSoonestEndingHolesFree) {
  // n2 is planned for job 42 in a minute, n3 in ten, n4 has no end in sight.
  Snapshot s = cluster(4, {"n1"});
  add_pending_regular(s, 42, kNow + 60, {"n2"});
  add_pending_regular(s, 43, kNow + 600, {"n3"});
  s.nodes[1].state = NodeState::planned;
  s.nodes[2].state = NodeState::planned;
  const std::vector<Hole> holes = find_holes(s);
  EXPECT_EQ(reserved_holes(holes, {}, 0), (std::set<std::string>{}));
  EXPECT_EQ(reserved_holes(holes, {}, 1), (std::set<std::string>{"n2"}));
  EXPECT_EQ(reserved_holes(holes, {}, 2), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(reserved_holes(holes, {"n2"}, 2), (std::set<std::string>{"n3", "n4"}));
  EXPECT_EQ(reserved_holes(holes, {}, 9).size(), 3U);  // never more than there are
}

TEST(Planner, ElasticJobsNeverStartOnTheIdleReserve) {
  Snapshot s = cluster(4, {"n1"});
  const ElasticJob job = elastic_job(s, 7, {"n1"}, 1, 4);
  PlannerSettings settings;
  settings.idle_reserve_nodes = 1;
  const Plan grown = plan(s, find_holes(s), {job}, kNow, settings);
  const Action* grow = action_for(grown, 7);
  ASSERT_NE(grow, nullptr);
  EXPECT_EQ(grow->nodes, (Nodes{"n4", "n3"}));  // n2 (first among equal ends) stays idle

  // With one idle node left, a held job is not admitted on it.
  Snapshot full = cluster(4, {"n1", "n2", "n3"});
  add_held_elastic(full, 8);
  EXPECT_TRUE(plan(full, find_holes(full), {}, kNow, settings).actions.empty());
  settings.idle_reserve_nodes = 0;
  EXPECT_NE(action_for(plan(full, find_holes(full), {}, kNow, settings), 8), nullptr);
}

TEST(Planner, ShrinksComeBeforeGrowsAndNeverMigrate) {
  // Two jobs; job 8 is worth more per node. Whatever the allocator picks, every shrink keeps
  // a subset with the batch host and every grow adds only nodes that were idle.
  Snapshot s = cluster(6, {"n1", "n2", "n3", "n4"});
  ElasticJob a = elastic_job(s, 7, {"n1", "n2", "n3"}, 1, 6);
  ElasticJob b = elastic_job(s, 8, {"n4"}, 1, 6);
  b.curve = ScalingCurve({{1, 1000.0}, {6, 6000.0}});
  const Plan p = plan(s, find_holes(s), {a, b}, kNow, {});
  bool seen_grow = false;
  for (const Action& action : p.actions) {
    if (action.kind == ActionKind::grow) {
      seen_grow = true;
      for (const std::string& node : action.nodes) EXPECT_TRUE(node == "n5" || node == "n6");
    } else {
      EXPECT_FALSE(seen_grow) << "a shrink after a grow";
      if (action.kind == ActionKind::shrink) {
        const ElasticJob& job = action.job_id == 7 ? a : b;
        EXPECT_EQ(action.nodes.front(), job.batch_host);
      }
    }
  }
  EXPECT_TRUE(seen_grow);
}

// SchedulerParameters=disable_job_shrink (slurm_release.hpp): slurmctld refuses every shrink.
TEST(Planner, WithoutJobShrinkAReclaimOfAnOwnNodeRequeuesTheJob) {
  // Job 42 needs n3, one of job 7's own nodes: a shrink would be refused, so job 7 is requeued.
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  add_pending_regular(s, 42, kNow + 240, {"n3"});
  PlannerSettings settings;
  settings.shrink_own_nodes = false;
  const Plan p = plan(s, find_holes(s), {job}, kNow, settings);
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions[0].kind, ActionKind::requeue);
  EXPECT_EQ(p.actions[0].drain, (Nodes{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(p.actions[0].waiting_job, 42U);
}

TEST(Planner, WithoutJobShrinkASatelliteIsStillGivenBackAlone) {
  // n4 is a satellite of job 7: cancelling it is no shrink, so job 7 keeps running on n1-n3.
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 4);
  job.satellites = {{"n4", 100}};
  add_pending_regular(s, 42, kNow + 240, {"n4"});
  PlannerSettings settings;
  settings.shrink_own_nodes = false;
  const Plan p = plan(s, find_holes(s), {job}, kNow, settings);
  ASSERT_FALSE(p.actions.empty());
  EXPECT_EQ(p.actions[0].kind, ActionKind::shrink);
  EXPECT_EQ(p.actions[0].nodes, (Nodes{"n1", "n2", "n3"}));
  EXPECT_EQ(p.actions[0].drain, (Nodes{"n4"}));
}

TEST(Planner, WithoutJobShrinkTheAllocatorNeverTakesAnOwnNode) {
  // Job 7 trains slower on 3 nodes than on 2: the allocator would shrink it by one of its own
  // nodes. Under disable_job_shrink it keeps all three.
  Snapshot s = cluster(4, {"n1", "n2", "n3"});
  ElasticJob job = elastic_job(s, 7, {"n1", "n2", "n3"}, 1, 3);
  job.curve = ScalingCurve({{1, 100.0}, {2, 200.0}, {3, 50.0}});
  PlannerSettings settings;
  settings.shrink_own_nodes = false;
  const Plan with = plan(s, find_holes(s), {job}, kNow, {});
  const bool allocator_shrinks =
      std::any_of(with.actions.begin(), with.actions.end(),
                  [](const Action& x) { return x.kind == ActionKind::shrink; });
  ASSERT_TRUE(allocator_shrinks) << "the instance no longer makes the allocator shrink job 7";
  const Plan p = plan(s, find_holes(s), {job}, kNow, settings);
  for (const Action& action : p.actions) {
    EXPECT_NE(action.kind, ActionKind::shrink) << "job " << action.job_id;
    EXPECT_NE(action.kind, ActionKind::requeue) << "job " << action.job_id;
  }
}

// Two elastic partitions, gpu (n1..n3) and cpu (n3..n5): n3 counts for gpu, listed first.
Snapshot two_partitions(const Nodes& busy) {
  Snapshot s = cluster(5, busy);
  s.partitions = {{"regular", {"n1", "n2", "n3", "n4", "n5"}},
                  {"gpu", {"n1", "n2", "n3"}},
                  {"cpu", {"n3", "n4", "n5"}}};
  return s;
}

TEST(Planner, ANodeInTwoElasticPartitionsIsPlannedInTheFirstListed) {
  const Snapshot s = two_partitions({});
  const std::vector<PartitionScope> scopes = partition_scopes(s, "gpu,cpu");
  ASSERT_EQ(scopes.size(), 2U);
  EXPECT_EQ(scopes[0].partition, "gpu");
  EXPECT_EQ(scopes[0].nodes, (std::set<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(scopes[1].partition, "cpu");
  EXPECT_EQ(scopes[1].nodes, (std::set<std::string>{"n4", "n5"}));
  // Listed the other way round, cpu has n3.
  EXPECT_EQ(partition_scopes(s, "cpu,gpu")[1].nodes, (std::set<std::string>{"n1", "n2"}));
  // A snapshot without partitions: the first plans over every node, the others over none.
  const std::vector<PartitionScope> bare = partition_scopes(cluster(2, {}), "gpu,cpu");
  EXPECT_FALSE(bare[0].nodes.has_value());
  EXPECT_EQ(bare[1].nodes, std::set<std::string>{});
}

TEST(Planner, EachElasticPartitionsJobsGrowIntoItsOwnHolesOnly) {
  Snapshot s = two_partitions({"n1", "n4"});
  ElasticJob gpu_job = elastic_job(s, 7, {"n1"}, 1, 5);
  s.jobs.back().partition = "gpu";
  ElasticJob cpu_job = elastic_job(s, 8, {"n4"}, 1, 5);
  s.jobs.back().partition = "cpu";
  PlannerSettings settings;
  settings.elastic_partitions = "gpu,cpu";
  const Plan p = plan(s, find_holes(s), {gpu_job, cpu_job}, kNow, settings);
  const Action* gpu_grow = action_for(p, 7);
  const Action* cpu_grow = action_for(p, 8);
  ASSERT_NE(gpu_grow, nullptr);
  ASSERT_NE(cpu_grow, nullptr);
  EXPECT_EQ(gpu_grow->nodes, (Nodes{"n3", "n2"}));
  EXPECT_EQ(cpu_grow->nodes, (Nodes{"n5"}));
  // One allocation over both: each job's nodes as its partition's allocator chose them.
  ASSERT_TRUE(p.allocation.has_value());
  EXPECT_EQ(p.allocation->allocation.at("7"), (Nodes{"n1", "n3", "n2"}));
  EXPECT_EQ(p.allocation->allocation.at("8"), (Nodes{"n4", "n5"}));
}

TEST(Planner, AWaitingJobIsAdmittedInItsOwnElasticPartition) {
  Snapshot s = two_partitions({"n1", "n2", "n3"});
  add_held_elastic(s, 9).partition = "cpu";
  add_held_elastic(s, 10).partition = "gpu";  // gpu is full: it waits
  PlannerSettings settings;
  settings.elastic_partitions = "gpu,cpu";
  const Plan p = plan(s, find_holes(s), {}, kNow, settings);
  const Action* admit = action_for(p, 9);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->kind, ActionKind::admit);
  ASSERT_EQ(admit->nodes.size(), 1U);
  EXPECT_TRUE(admit->nodes[0] == "n4" || admit->nodes[0] == "n5") << admit->nodes[0];
  EXPECT_EQ(action_for(p, 10), nullptr);
  // Only the one listed partition: the cpu job is not gaptrain's, the gpu one still waits.
  settings.elastic_partitions = "gpu";
  EXPECT_TRUE(plan(s, find_holes(s), {}, kNow, settings).actions.empty());
}

TEST(Planner, AJobOfAnotherElasticPartitionIsNotARegularJobToReclaimFor) {
  // A cpu job waiting for nodes is elastic: it takes nothing from the gpu job (n3 is in both
  // partitions), as a regular job waiting for nodes would.
  Snapshot s = two_partitions({"n1", "n2", "n3", "n4", "n5"});
  const ElasticJob gpu_job = elastic_job(s, 7, {"n1", "n2", "n3"}, 1, 3);
  s.jobs.back().partition = "gpu";
  add_waiting_regular(s, 11, 1, 100).partition = "cpu";
  EXPECT_TRUE(nodes_to_reclaim(s, {gpu_job}, "gpu,cpu").nodes.empty());
  EXPECT_EQ(nodes_to_reclaim(s, {gpu_job}, "gpu").nodes.size(), 1U);  // cpu is regular there
}

}  // namespace
}  // namespace gaptrain::core::planner_test
