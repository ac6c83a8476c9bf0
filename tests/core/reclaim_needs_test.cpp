// The reclaims for regular jobs that can start on some nodes only (core/node_needs.hpp): one
// pinned to a node (-w), one that excludes nodes (-x), one whose constraint only some nodes
// meet, one in a reservation, and one that asks for a count only. Each gets exactly the nodes
// it can start on; an elastic job whose batch host it names is requeued (docs/user.md, "Batch
// host needed"), never left to end at its lease.
#include <gtest/gtest.h>

#include <map>

#include "core/node_needs.hpp"
#include "core/planner.hpp"
#include "planner_world.hpp"

namespace gaptrain::core::reclaim_needs_test {
namespace {

using namespace planner_world;
using Taken = std::vector<std::pair<std::string, std::uint32_t>>;

// Regular job 42, waiting for nodes (Resources), one node unless told otherwise; backfill plans
// it at the elastic lease's end (kNow + 240) on `planned` when any are given.
Job& waiting_regular(Snapshot& s, const Nodes& planned = {}) {
  Job job;
  job.id = 42;
  job.state = JobState::pending;
  job.partition = "regular";
  job.min_nodes = 1;
  job.priority = 100;
  job.reason = PendingReason::resources;
  if (!planned.empty()) {
    job.sched_nodes = planned;
    job.start_time = kNow + 240;
  }
  s.jobs.push_back(job);
  return s.jobs.back();
}

// Elastic job 7 on `nodes` (batch host first), every node after the first a satellite.
ElasticJob grown_job(Snapshot& s, const Nodes& nodes) {
  ElasticJob job = elastic_job(s, 7, nodes, 1, 8);
  std::uint32_t satellite = 70;
  for (std::size_t i = 1; i < nodes.size(); ++i) job.satellites[nodes[i]] = satellite++;
  return job;
}

Taken reclaimed(const Snapshot& s, const ElasticJob& job) {
  return nodes_to_reclaim(s, {job}, ElasticPartitions("elastic")).nodes;
}

const Action* reclaim_of(const Plan& p) {
  for (const Action& a : p.actions)
    if (a.job_id == 7 && a.waiting_job == 42) return &a;
  return nullptr;
}

// The probe: batch host n1, four nodes idle, `sbatch -w n1`. Before, the idle nodes counted as
// serving the job: nothing was reclaimed, the lease was not renewed past backfill's plan on n1,
// and the elastic job ended TIMEOUT there. Now n1 is taken: the job is requeued (held, admitted
// again later, from its checkpoint).
TEST(ReclaimNeeds, AJobPinnedToABatchHostRequeuesItsJob) {
  Snapshot s = cluster(8, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n1", "n2", "n3", "n4"});
  waiting_regular(s, {"n1"}).required_nodes = {"n1"};
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n1", 42}}));
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* requeue = reclaim_of(p);
  ASSERT_NE(requeue, nullptr);
  EXPECT_EQ(requeue->kind, ActionKind::requeue);
  // Not planned yet by backfill (just submitted): the same.
  Snapshot fresh = cluster(8, {"n1", "n2", "n3", "n4"});
  const ElasticJob again = grown_job(fresh, {"n1", "n2", "n3", "n4"});
  waiting_regular(fresh).required_nodes = {"n1"};
  EXPECT_EQ(reclaimed(fresh, again), (Taken{{"n1", 42}}));
}

// The probe's first run: batch host n2, every node held. Before, a satellite stood in for the
// batch host the job names (drained for nothing), and the job was grown back onto it.
TEST(ReclaimNeeds, NoOtherNodeStandsInForANamedBatchHost) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n2", "n1", "n3", "n4"});
  waiting_regular(s, {"n2"}).required_nodes = {"n2"};
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* requeue = reclaim_of(p);
  ASSERT_NE(requeue, nullptr);
  EXPECT_EQ(requeue->kind, ActionKind::requeue);
}

// Pinned to a satellite: that satellite goes, not the first in the giving order, and the job
// keeps its batch host.
TEST(ReclaimNeeds, AJobPinnedToASatelliteTakesThatOne) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n1", "n2", "n3", "n4"});
  waiting_regular(s).required_nodes = {"n4"};
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n4", 42}}));
  const Plan p = plan(s, find_holes(s), {job}, kNow, {});
  const Action* shrink = reclaim_of(p);
  ASSERT_NE(shrink, nullptr);
  EXPECT_EQ(shrink->kind, ActionKind::shrink);
  EXPECT_EQ(shrink->drain, (Nodes{"n4"}));
  // With idle nodes beside it too: they cannot stand in for n4.
  Snapshot wider = cluster(8, {"n1", "n2", "n3", "n4"});
  const ElasticJob same = grown_job(wider, {"n1", "n2", "n3", "n4"});
  waiting_regular(wider, {"n4"}).required_nodes = {"n4"};
  EXPECT_EQ(reclaimed(wider, same), (Taken{{"n4", 42}}));
  // Named beside a count (-w n4 -N 2): n4 and one idle node, kept for it.
  Job& two = wider.jobs.back();
  two.min_nodes = 2;
  const Reclaim both = nodes_to_reclaim(wider, {same}, ElasticPartitions("elastic"));
  EXPECT_EQ(both.nodes, (Taken{{"n4", 42}}));
  EXPECT_EQ(kept_nodes(both), (std::set<std::string>{"n5"}));
}

// A named node that is idle serves it: nothing is taken, and the node is no hole to grow into.
TEST(ReclaimNeeds, AnIdleNamedNodeIsKeptForItsJob) {
  Snapshot s = cluster(4, {"n1", "n2"});
  const ElasticJob job = grown_job(s, {"n1", "n2"});
  waiting_regular(s).required_nodes = {"n4"};
  const Reclaim r = nodes_to_reclaim(s, {job}, ElasticPartitions("elastic"));
  EXPECT_TRUE(r.nodes.empty());
  EXPECT_EQ(kept_nodes(r), (std::set<std::string>{"n4"}));
}

// A named node a regular job holds: the elastic nodes would not start it, none is taken.
TEST(ReclaimNeeds, ANamedNodeARegularJobHoldsTakesNothing) {
  Snapshot s = cluster(4, {"n1", "n2", "n3"});
  const ElasticJob job = grown_job(s, {"n1", "n2"});
  waiting_regular(s).required_nodes = {"n3"};
  EXPECT_TRUE(reclaimed(s, job).empty());
}

// A job pinned to a node it cannot have now does not hold up the jobs after it (Slurm's main
// scheduler passes over it, keeping only its nodes back): the next one gets a satellite, not the
// node the first one names.
TEST(ReclaimNeeds, AJobPinnedToABusyNodeHoldsBackOnlyThatNode) {
  Snapshot s = cluster(4, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n1", "n3", "n2"});  // n3 first in the giving order
  Job& pinned = waiting_regular(s);
  pinned.required_nodes = {"n4", "n3"};  // n4 a regular job's
  pinned.min_nodes = 2;
  pinned.priority = 200;
  Job& next = waiting_regular(s);
  next.id = 43;
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 43}}));
}

// --constraint=a100 while the a100 nodes are elastic and the v100 ones idle: before, the idle
// v100 nodes counted as serving it and nothing was reclaimed. Now an a100 satellite goes.
TEST(ReclaimNeeds, AConstraintIsServedByNodesThatMeetIt) {
  Snapshot s = cluster(8, {"n1", "n2", "n3", "n4"});
  for (Node& node : s.nodes) node.features = node.name <= "n4" ? "a100" : "v100";
  const ElasticJob job = grown_job(s, {"n1", "n2", "n3", "n4"});
  waiting_regular(s).features = "a100";
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));
  // Backfill plans it on the batch host n1: another a100 satellite stands in, never a v100 node.
  Snapshot mixed = cluster(4, {"n1", "n2", "n3", "n4"});
  for (Node& node : mixed.nodes) node.features = node.name <= "n2" ? "a100" : "v100";
  const ElasticJob on_both = grown_job(mixed, {"n1", "n3", "n4", "n2"});
  Job& planned = waiting_regular(mixed, {"n1"});
  planned.features = "[a100]";
  planned.reason = PendingReason::priority;
  EXPECT_EQ(reclaimed(mixed, on_both), (Taken{{"n2", 42}}));
}

// -x: the nodes it excludes do not serve it.
TEST(ReclaimNeeds, ExcludedIdleNodesDoNotServeAJob) {
  Snapshot s = cluster(3, {"n1", "n2"});
  const ElasticJob job = grown_job(s, {"n1", "n2"});
  waiting_regular(s).excluded_nodes = {"n3"};
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));
}

// --reservation: a job in one starts on its nodes only, and no other job on an active one's.
TEST(ReclaimNeeds, AReservationDecidesWhichNodesServe) {
  Snapshot s = cluster(8, {"n1", "n2"});
  s.reservations.push_back({"maint", kNow - 60, kNow + 3600, {"n1", "n2"}});
  const ElasticJob job = grown_job(s, {"n1", "n2"});
  waiting_regular(s).reservation = "maint";
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));
  s.jobs.back().reservation = "other,maint";  // several: it runs in whichever it can
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));

  Snapshot other = cluster(4, {"n3", "n4"});
  other.reservations.push_back({"maint", kNow - 60, kNow + 3600, {"n1", "n2"}});
  const ElasticJob outside = grown_job(other, {"n3", "n4"});
  waiting_regular(other);  // in no reservation: the idle n1, n2 are not for it
  EXPECT_EQ(reclaimed(other, outside), (Taken{{"n4", 42}}));
}

// A job that would fit in the idle nodes, but that backfill plans on an elastic node at its
// lease's end: something the node model does not see (memory, a licence) keeps it off the idle
// ones. Its plan is due: the planned node is taken (before, the idle nodes counted as serving it,
// nothing was reclaimed, and the elastic job's lease could not be renewed past the plan).
TEST(ReclaimNeeds, APlanOnElasticNodesIsServedThoughIdleNodesWouldFit) {
  Snapshot s = cluster(8, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n1", "n2", "n3", "n4"});
  waiting_regular(s, {"n3"});
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n3", 42}}));
  // Planned on the batch host: a satellite stands in, as for any plan.
  s.jobs.back().sched_nodes = {"n1"};
  EXPECT_EQ(reclaimed(s, job), (Taken{{"n2", 42}}));
  // Planned beyond the lease: it waits for something else, nothing is taken.
  s.jobs.back().start_time = kNow + 3600;
  EXPECT_TRUE(reclaimed(s, job).empty());
}

// --nodes with a count only: any node serves; idle ones first, then satellites, and a batch
// host only when nothing else is left (unchanged).
TEST(ReclaimNeeds, ACountOnlyJobTakesSatellitesBeforeABatchHost) {
  Snapshot s = cluster(5, {"n1", "n2", "n3", "n4"});
  const ElasticJob job = grown_job(s, {"n1", "n2", "n3", "n4"});
  waiting_regular(s).min_nodes = 3;
  const Reclaim r = nodes_to_reclaim(s, {job}, ElasticPartitions("elastic"));
  EXPECT_EQ(r.nodes, (Taken{{"n2", 42}, {"n3", 42}}));
  EXPECT_EQ(kept_nodes(r), (std::set<std::string>{"n5"}));
}

TEST(ReclaimNeeds, ConstraintsReadAsSlurmWritesThem) {
  EXPECT_EQ(meets_constraint("a100", "a100,ib"), true);
  EXPECT_EQ(meets_constraint("v100", "a100,ib"), false);
  EXPECT_EQ(meets_constraint("a100&ib", "a100,ib"), true);
  EXPECT_EQ(meets_constraint("a100&v100", "a100,ib"), false);
  EXPECT_EQ(meets_constraint("v100|a100", "a100"), true);
  EXPECT_EQ(meets_constraint("[v100|a100]", "a100"), true);
  EXPECT_EQ(meets_constraint("(v100|a100)&ib", "a100"), false);
  EXPECT_EQ(meets_constraint("[a100*2&ib*1]", "a100,ib"), true);
  EXPECT_EQ(meets_constraint("!v100", "a100"), true);
  EXPECT_EQ(meets_constraint("a100|", "a100"), std::nullopt);
  EXPECT_EQ(meets_constraint("(a100", "a100"), std::nullopt);
  // Nested beyond reason (any user writes constraints): not read, and no stack overflow.
  EXPECT_EQ(meets_constraint(std::string(200000, '(') + "a100" + std::string(200000, ')'), "a100"),
            std::nullopt);
  EXPECT_EQ(meets_constraint(std::string(200000, '!') + "a100", "a100"), std::nullopt);
  EXPECT_EQ(meets_constraint("((((a100))))", "a100"), true);
}

// The congested replay: a job at home holds n1-n4 as satellites of the satellite QOS, each with
// a 2-minute limit (the whole minutes before its hole ends); a 5-node regular job waits for n5,
// a regular job's, and backfill plans it at kNow + 150 on all five. Backfill plans past
// preemptable satellites, so their limits are not what it waits for: before, they were taken at
// once (the plan's start within a minute of their limits), the job grew back into the holes at
// the next poll, and so on every 15 s, leaving the holes empty.
struct PlannedPastSatellites {
  Snapshot s = cluster(5, {"n1", "n2", "n3", "n4", "n5"});
  ElasticJob job;

  explicit PlannedPastSatellites(std::int64_t start_in_s) {
    job = elastic_job(s, 7, {"n1", "n2", "n3", "n4"}, 1, 8);
    job.batch_host.clear();
    job.at_home = true;
    job.down_cost_s = 1.0;
    std::uint32_t id = 70;
    for (const std::string& node : job.nodes) {
      Job satellite;
      satellite.id = id;
      satellite.state = JobState::running;
      satellite.partition = "elastic";
      satellite.qos = "satellite";
      satellite.nodes = {node};
      satellite.end_time = kNow + 120;
      s.jobs.push_back(satellite);
      job.satellites[node] = id++;
    }
    Job& regular = waiting_regular(s, {"n1", "n2", "n3", "n4", "n5"});
    regular.min_nodes = 5;
    regular.start_time = kNow + start_in_s;
  }

  std::size_t reclaimed(const std::string& satellite_qos) const {
    return nodes_to_reclaim(s, {job}, ElasticPartitions("elastic"), {}, {}, 0, satellite_qos)
        .nodes.size();
  }
};

TEST(ReclaimNeeds, PreemptableSatellitesStayUntilThePlannedStartNears) {
  const PlannedPastSatellites far(150);
  EXPECT_EQ(far.reclaimed("satellite"), 0U);
  // Satellites in their job's QOS are leases backfill plans around: taken as before.
  EXPECT_EQ(far.reclaimed(""), 4U);
  // Within the slack and the job's down cost of the start: taken, in time to leave.
  const PlannedPastSatellites near(10);
  EXPECT_EQ(near.reclaimed("satellite"), 4U);
  const PlannedPastSatellites beyond(12);
  EXPECT_EQ(beyond.reclaimed("satellite"), 0U);
}

// A 6-node job (40) blocks the partition, planned at kNow + 300 on n1-n6 (regular jobs hold
// n1-n4, an elastic job n7); n5 and n6 are idle.
// Behind it a 1-node job backfill starts at its next pass: its 1-minute limit ends before that
// plan. Its idle node is kept for it (no elastic job grows there only to be preempted for it).
// One with a 10-minute limit would delay the plan: backfill does not start it, nothing is kept.
Reclaim behind_a_blocked_job(std::uint32_t limit_minutes) {
  Snapshot s = cluster(7, {"n1", "n2", "n3", "n4", "n7"});
  const ElasticJob job = elastic_job(s, 7, {"n7"}, 1, 8);
  Job& blocker = waiting_regular(s, {"n1", "n2", "n3", "n4", "n5", "n6"});
  blocker.id = 40;
  blocker.min_nodes = 6;
  blocker.priority = 200;
  blocker.start_time = kNow + 300;
  waiting_regular(s).time_limit_minutes = limit_minutes;
  return nodes_to_reclaim(s, {job}, ElasticPartitions("elastic"));
}

TEST(ReclaimNeeds, IdleNodesBackfillStartsAJobOnAreKeptForIt) {
  const Reclaim short_job = behind_a_blocked_job(1);
  EXPECT_TRUE(short_job.nodes.empty());
  EXPECT_EQ(short_job.kept_idle,
            (std::map<std::string, KeptIdle>{
                {"n5", {42, "backfill starts it here, behind a blocked job"}}}));
  const Reclaim long_job = behind_a_blocked_job(10);
  EXPECT_TRUE(long_job.nodes.empty());
  EXPECT_TRUE(long_job.kept_idle.empty());
}

}  // namespace
}  // namespace gaptrain::core::reclaim_needs_test
