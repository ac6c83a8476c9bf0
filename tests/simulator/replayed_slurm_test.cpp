// The simulator's Slurm (simulator/replayed_slurm.hpp): what a poll shows of the trace's regular
// workload and of the elastic jobs, and what each of the core's actions does to the cluster.
#include "simulator/replayed_slurm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/holes.hpp"
#include "core/home.hpp"

namespace gaptrain::sim::replayed_slurm_test {
namespace {

using core::Job;
using core::JobState;
using core::NodeState;
using core::Snapshot;

constexpr std::int64_t kEpoch = ReplayedSlurm::kEpoch;

HoleTrace nodes(int count) {
  HoleTrace trace;
  for (int n = 0; n < count; ++n) trace.node_names.push_back("n" + std::to_string(n));
  return trace;
}

Snapshot poll(ReplayedSlurm& slurm) {
  Snapshot snapshot;
  EXPECT_TRUE(slurm.poll(snapshot, slurm.wall_at(slurm.time()), true).ok);
  return snapshot;
}

const Job* job_named(const Snapshot& s, const std::string& partition) {
  const auto it = std::find_if(s.jobs.begin(), s.jobs.end(),
                               [&](const Job& j) { return j.partition == partition; });
  return it == s.jobs.end() ? nullptr : &*it;
}

// Job `id` grows by a satellite on `node`, as user and group 2000, for a 5-minute lease.
core::GrowRequest grow_onto(std::uint32_t id, const std::string& node) {
  core::GrowRequest request;
  request.job_id = id;
  request.partition = "elastic";
  request.add_nodes = {node};
  request.user_id = request.group_id = 2000;
  request.time_limit_minutes = 5;
  return request;
}

// A running elastic job on n0 (admitted), with a satellite on n1.
struct Running {
  ReplayedSlurm slurm;
  std::uint32_t id = 0;
  std::uint32_t satellite = 0;
  explicit Running(Placement placement = Placement::trace)
      : slurm(nodes(3), 3, "elastic", kEpoch, placement) {
    for (int n = 0; n < 3; ++n) slurm.free_node(n, kUnknownEnd);
    id = slurm.submit_elastic("a", 1, 3);
    EXPECT_TRUE(slurm.admit({id, {"n0"}, 5, ""}).ok);
    const core::GrowResult grown = slurm.grow(grow_onto(id, "n1"));
    EXPECT_TRUE(grown.ok) << grown.error;
    satellite = grown.satellites.at("n1");
  }
};

TEST(ReplayedSlurm, APlanShowsAsOnePendingJobPerHoleEndThatNoElasticNodeStartsSooner) {
  ReplayedSlurm slurm(nodes(3), 3, "elastic");
  slurm.free_node(0, 100.0);
  slurm.free_node(1, 100.0);
  slurm.free_node(2, kUnknownEnd);
  const Snapshot s = poll(slurm);
  EXPECT_EQ(s.nodes[0].state, NodeState::planned);
  EXPECT_EQ(s.nodes[2].state, NodeState::idle);
  ASSERT_EQ(s.jobs.size(), 1U);
  EXPECT_EQ(s.jobs[0].start_time, kEpoch + 100);
  EXPECT_EQ(s.jobs[0].sched_nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_GT(s.jobs[0].min_nodes, 3U);  // it also waits for nodes regular jobs hold
}

TEST(ReplayedSlurm, ANodeTakenFromAnElasticJobWaitsForItAndIsHandedOverWhenLetGo) {
  Running r;
  r.slurm.set_time(50.0);
  EXPECT_TRUE(r.slurm.take_node(1));
  EXPECT_EQ(r.slurm.regular_waiting(), 1);
  EXPECT_EQ(r.slurm.hole_nodes(), 2);
  const Snapshot s = poll(r.slurm);
  const Job* waiting = job_named(s, "only:n1");
  ASSERT_NE(waiting, nullptr) << "no regular job waits for n1";
  EXPECT_EQ(waiting->state, JobState::pending);
  EXPECT_EQ(waiting->sched_nodes, (std::vector<std::string>{"n1"}));
  // Its own partition holds only n1: no other idle node stands in for it.
  const auto partition = std::find_if(s.partitions.begin(), s.partitions.end(),
                                      [](const auto& p) { return p.name == "only:n1"; });
  ASSERT_NE(partition, s.partitions.end());
  EXPECT_EQ(partition->nodes, (std::vector<std::string>{"n1"}));

  r.slurm.set_time(51.5);
  EXPECT_TRUE(r.slurm.release({r.satellite}).ok);
  EXPECT_EQ(r.slurm.regular_waiting(), 0);
  EXPECT_EQ(r.slurm.regular_waits(), (std::vector<double>{1.5}));
  EXPECT_EQ(job_named(poll(r.slurm), "only:n1"), nullptr);
  // The regular job has n1 now: no grow may take it.
  EXPECT_FALSE(r.slurm.grow(grow_onto(r.id, "n1")).ok);
}

// Where Slurm places regular jobs, one the trace starts on n1 (the satellite's) runs on the idle
// n2 instead: n2 takes n1's place in the trace from then on (when the trace frees n1 again, it
// is n2 that is freed), and nobody waits.
TEST(ReplayedSlurm, WhereSlurmPlacesAJobTheTraceStartsOnAnElasticNodeItRunsOnAnIdleOne) {
  Running r(Placement::slurm);
  r.slurm.set_time(50.0);
  EXPECT_TRUE(r.slurm.take_node(1));
  EXPECT_EQ(r.slurm.regular_waiting(), 0);
  EXPECT_EQ(r.slurm.placed(1), 2);
  EXPECT_EQ(r.slurm.placed(2), 1);
  EXPECT_TRUE(r.slurm.is_hole(1));
  EXPECT_FALSE(r.slurm.is_hole(2));
  EXPECT_EQ(r.slurm.nodes_of(r.id), (std::vector<int>{0, 1}));
  EXPECT_EQ(r.slurm.free_node(1, kUnknownEnd), kUnknownEnd);  // n2 is free again
  EXPECT_TRUE(r.slurm.is_hole(2));
  EXPECT_EQ(r.slurm.hole_nodes(), 3);
}

// With no idle node left, it waits for any node (the regular partition), and starts on the
// first node an elastic job lets go: here the batch host's n0, the satellite staying.
TEST(ReplayedSlurm, WhereSlurmPlacesAJobWithNoIdleNodeItWaitsForTheFirstNodeLetGo) {
  Running r(Placement::slurm);
  const core::GrowResult grown = r.slurm.grow(grow_onto(r.id, "n2"));
  ASSERT_TRUE(grown.ok) << grown.error;
  r.slurm.set_time(50.0);
  EXPECT_TRUE(r.slurm.take_node(1));
  EXPECT_EQ(r.slurm.regular_waiting(), 1);
  const Snapshot s = poll(r.slurm);
  const Job* waiting = job_named(s, "regular");
  ASSERT_NE(waiting, nullptr) << "no regular job waits";
  EXPECT_EQ(waiting->min_nodes, 1U);
  EXPECT_TRUE(waiting->sched_nodes.empty());
  r.slurm.set_time(51.0);
  EXPECT_TRUE(r.slurm.release({grown.satellites.at("n2")}).ok);
  EXPECT_EQ(r.slurm.regular_waiting(), 0);
  EXPECT_EQ(r.slurm.regular_waits(), (std::vector<double>{1.0}));
  EXPECT_EQ(r.slurm.placed(1), 2);  // the regular job runs on n2
  EXPECT_TRUE(r.slurm.is_hole(1));  // n1 is a hole again, still the satellite's
  EXPECT_EQ(r.slurm.held_hole_nodes(), 2);
}

// A node the trace frees while a regular job waits goes to that job.
TEST(ReplayedSlurm, WhereSlurmPlacesAJobANodeTheTraceFreesStartsTheOneWaiting) {
  ReplayedSlurm slurm(nodes(3), 3, "elastic", kEpoch, Placement::slurm);
  slurm.free_node(0, kUnknownEnd);
  const std::uint32_t id = slurm.submit_elastic("a", 1, 1);
  ASSERT_TRUE(slurm.admit({id, {"n0"}, 5, ""}).ok);
  slurm.set_time(10.0);
  EXPECT_TRUE(slurm.take_node(0));
  EXPECT_EQ(slurm.regular_waiting(), 1);
  slurm.set_time(12.0);
  slurm.free_node(2, kUnknownEnd);  // n2's regular job ends
  EXPECT_EQ(slurm.regular_waiting(), 0);
  EXPECT_EQ(slurm.regular_waits(), (std::vector<double>{2.0}));
  EXPECT_FALSE(slurm.is_hole(2));  // the waiting job runs there
  EXPECT_TRUE(slurm.is_hole(0));   // and the elastic job keeps n0, a hole again
  EXPECT_EQ(slurm.hole_nodes(), 1);
  EXPECT_EQ(slurm.held_hole_nodes(), 1);
}

// Node types: n0, n1 a100, n2, n3 v100. A poll reports each node's type (unless the
// site told gaptraind none); a regular job the trace starts on the elastic job's a100 node runs
// on an idle a100 node only, and with none it waits for an a100 node (its partition says so),
// not taking the v100 node let go.
TEST(ReplayedSlurm, WithNodeTypesAPollReportsThemAndARegularJobKeepsToItsType) {
  HoleTrace trace = nodes(4);
  trace.node_types = {"a100", "a100", "v100", "v100"};
  ReplayedSlurm slurm(trace, 4, "elastic", kEpoch, Placement::slurm);
  for (int n = 0; n < 4; ++n) slurm.free_node(n, kUnknownEnd);
  const std::uint32_t id = slurm.submit_elastic("a", 1, 4);
  ASSERT_TRUE(slurm.admit({id, {"n1", "n0", "n2"}, 5, ""}).ok);  // batch host n1
  EXPECT_EQ(slurm.node_type(1), "a100");
  Snapshot s = poll(slurm);
  ASSERT_EQ(s.nodes.size(), 4U);
  EXPECT_EQ(s.nodes[0].type, "a100");
  EXPECT_EQ(s.nodes[0].type_source, core::NodeTypeSource::feature);
  EXPECT_EQ(s.nodes[3].type, "v100");

  slurm.set_time(50.0);
  EXPECT_TRUE(slurm.take_node(1));  // the idle node is n3, a v100: it waits
  EXPECT_EQ(slurm.placed(1), 1);
  EXPECT_EQ(slurm.regular_waiting(), 1);
  s = poll(slurm);
  const Job* waiting = job_named(s, "type:a100");
  ASSERT_NE(waiting, nullptr) << "no regular job waits for an a100 node";
  const auto partition = std::find_if(s.partitions.begin(), s.partitions.end(),
                                      [](const auto& p) { return p.name == "type:a100"; });
  ASSERT_NE(partition, s.partitions.end());
  EXPECT_EQ(partition->nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_TRUE(slurm.shrink({id, "n1", {"n1", "n0"}}).ok);  // n2, a v100, let go: it waits on
  EXPECT_EQ(slurm.regular_waiting(), 1);
  slurm.set_time(51.0);
  EXPECT_TRUE(slurm.shrink({id, "n1", {"n1"}}).ok);  // n0 let go: it runs there
  EXPECT_EQ(slurm.regular_waiting(), 0);
  EXPECT_EQ(slurm.placed(1), 0);

  // A satellite asking for a type (--constraint) fits only a node of it.
  core::GrowRequest onto_v100 = grow_onto(id, "n2");
  onto_v100.constraint = "a100";
  EXPECT_FALSE(slurm.grow(onto_v100).ok);
  onto_v100.constraint = "v100";
  EXPECT_TRUE(slurm.grow(onto_v100).ok);

  ReplayedSlurm untold(trace, 4, "elastic", kEpoch, Placement::slurm, false);
  s = poll(untold);
  EXPECT_EQ(s.nodes[0].type, "");
  EXPECT_EQ(s.nodes[0].type_source, core::NodeTypeSource::none);
  EXPECT_EQ(untold.node_type(0), "a100");  // the replay still knows
}

TEST(ReplayedSlurm, AGrowIsAllOrNothingOnIdleHoleNodes) {
  Running r;
  const std::size_t satellites_before = poll(r.slurm).jobs.size();
  EXPECT_TRUE(r.slurm.take_node(2));  // a regular job has n2 now
  const core::GrowResult refused = r.slurm.grow(grow_onto(r.id, "n2"));
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("n2"), std::string::npos) << refused.error;
  EXPECT_EQ(poll(r.slurm).jobs.size(), satellites_before);
  EXPECT_EQ(r.slurm.nodes_of(r.id), (std::vector<int>{0, 1}));
}

TEST(ReplayedSlurm, AdmissionSetsTheJobsSizeToItsNodesAndRequeueHoldsItKeepingNothing) {
  ReplayedSlurm slurm(nodes(2), 2, "elastic");
  slurm.free_node(0, kUnknownEnd);
  slurm.free_node(1, kUnknownEnd);
  const std::uint32_t id = slurm.submit_elastic("a", 1, 2);
  const Job held = *slurm.job(id);
  EXPECT_TRUE(held.held);
  EXPECT_EQ(held.state, JobState::pending);
  ASSERT_TRUE(slurm.admit({id, {"n1", "n0"}, 3, ""}).ok);
  const Job started = *slurm.job(id);
  EXPECT_EQ(started.state, JobState::running);
  EXPECT_EQ(started.batch_host, "n1");
  EXPECT_EQ(started.min_nodes, 2U);  // as slurmctld sets it
  EXPECT_EQ(started.time_limit_minutes, 3U);
  EXPECT_FALSE(slurm.admit({id, {"n0"}, 3, ""}).ok);  // not held any more
  ASSERT_TRUE(slurm.requeue(id).ok);
  const Job requeued = *slurm.job(id);
  EXPECT_TRUE(requeued.held);
  EXPECT_TRUE(requeued.requeued);
  EXPECT_TRUE(slurm.nodes_of(id).empty());
  EXPECT_EQ(slurm.held_hole_nodes(), 0);
}

TEST(ReplayedSlurm, AnEndedJobStaysListedForMinJobAgeAndItsOrphanSatelliteEndsAtItsLimit) {
  Running r;
  r.slurm.set_time(10.0);
  r.slurm.end_elastic(r.id);
  EXPECT_EQ(r.slurm.nodes_of(r.id), std::vector<int>{});
  const Snapshot after_end = poll(r.slurm);
  const auto owner = std::find_if(after_end.jobs.begin(), after_end.jobs.end(),
                                  [&](const Job& j) { return j.id == r.id; });
  ASSERT_NE(owner, after_end.jobs.end()) << "the ended job is not listed";
  EXPECT_EQ(owner->state, JobState::finished);
  EXPECT_EQ(r.slurm.held_hole_nodes(), 1);  // the satellite holds n1 until released
  r.slurm.set_time(299.0);
  poll(r.slurm);
  EXPECT_EQ(r.slurm.held_hole_nodes(), 1);  // within its 5-minute limit, from its start at 0
  r.slurm.set_time(300.0);
  const Snapshot at_limit = poll(r.slurm);
  EXPECT_EQ(r.slurm.held_hole_nodes(), 0);  // ended at its limit
  EXPECT_TRUE(std::any_of(at_limit.jobs.begin(), at_limit.jobs.end(),
                          [&](const Job& j) { return j.id == r.id; }));
  r.slurm.set_time(10.0 + 300.0);
  const Snapshot aged = poll(r.slurm);
  EXPECT_TRUE(
      std::none_of(aged.jobs.begin(), aged.jobs.end(), [&](const Job& j) { return j.id == r.id; }));
}

// The home mode (core/home.hpp) as docs/admin.md sets it up: home partition "elastic-home",
// satellites in QOS "satellite", which the regular workload's QOS preempts.
const ElasticSetup kHome{.home_partition = "elastic-home", .preemptable_qos = "satellite"};

core::GrowRequest preemptable_onto(std::uint32_t id, const std::string& node) {
  core::GrowRequest request = grow_onto(id, node);
  request.qos = "satellite";
  return request;
}

// A job admitted to the home partition, on n0..n2 all free.
struct AtHome {
  ReplayedSlurm slurm;
  std::uint32_t id = 0;
  explicit AtHome(Placement placement = Placement::trace)
      : slurm(nodes(3), 3, "elastic", kEpoch, placement, true, kHome) {
    for (int n = 0; n < 3; ++n) slurm.free_node(n, kUnknownEnd);
    id = slurm.submit_elastic("a", 1, 3);
    // The nodes named are the holes it grows into once it runs; the limit is its own.
    EXPECT_TRUE(slurm
                    .admit({.job_id = id,
                            .nodes = {"n0"},
                            .time_limit_minutes = 0,
                            .admin_comment = "gaptrain:nodes=1-3,trains_in=elastic",
                            .home_partition = "elastic-home"})
                    .ok);
  }
};

TEST(ReplayedSlurmHome, AnAdmissionStartsTheJobOnTheHomeNodeHoldingNoTrainingNode) {
  AtHome h;
  EXPECT_TRUE(h.slurm.running(h.id));
  EXPECT_TRUE(h.slurm.nodes_of(h.id).empty());
  EXPECT_EQ(h.slurm.held_hole_nodes(), 0);
  EXPECT_EQ(h.slurm.hole_nodes(), 3);  // the home node is none of the trace's
  const Job job = *h.slurm.job(h.id);
  EXPECT_EQ(job.partition, "elastic-home");
  EXPECT_EQ(job.nodes, (std::vector<std::string>{h.slurm.home_node()}));
  EXPECT_EQ(job.batch_host, h.slurm.home_node());
  EXPECT_EQ(job.admin_comment, "gaptrain:nodes=1-3,trains_in=elastic");

  // As the core sees it: in the partition it trains in, holding nothing, the home node no hole.
  Snapshot s = poll(h.slurm);
  const auto home = std::find_if(s.partitions.begin(), s.partitions.end(),
                                 [](const auto& p) { return p.name == "elastic-home"; });
  ASSERT_NE(home, s.partitions.end());
  EXPECT_EQ(home->nodes, (std::vector<std::string>{h.slurm.home_node()}));
  core::see_home(s, "elastic-home");
  const Job* seen = core::find_job(s, h.id);
  ASSERT_NE(seen, nullptr);
  EXPECT_TRUE(seen->at_home);
  EXPECT_EQ(seen->partition, "elastic");
  EXPECT_TRUE(seen->nodes.empty());
  EXPECT_EQ(core::find_holes(s).size(), 3U);

  // It grows through satellites as usual.
  ASSERT_TRUE(h.slurm.grow(preemptable_onto(h.id, "n0")).ok);
  EXPECT_EQ(h.slurm.nodes_of(h.id), (std::vector<int>{0}));
  EXPECT_EQ(h.slurm.held_hole_nodes(), 1);
}

TEST(ReplayedSlurmHome, AnAdmissionToAPartitionTheClusterLacksIsRefused) {
  ReplayedSlurm slurm(nodes(1), 1, "elastic");  // no home partition
  slurm.free_node(0, kUnknownEnd);
  const std::uint32_t id = slurm.submit_elastic("a", 1, 1);
  const core::ActionResult refused = slurm.admit({.job_id = id,
                                                  .nodes = {"n0"},
                                                  .time_limit_minutes = 0,
                                                  .admin_comment = "",
                                                  .home_partition = "elastic-home"});
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("elastic-home"), std::string::npos) << refused.error;
  EXPECT_FALSE(slurm.running(id));
}

// Slurm preempts a satellite in the preemptable QOS: the regular job starts at once, the
// satellite is listed PREEMPTED for MinJobAge, and the job at home, with no node left, is paused
// (it runs on, holding nothing); it grows back through a new satellite.
TEST(ReplayedSlurmHome, ARegularJobPreemptsTheSatelliteAtOnceAndTheJobAtHomeIsPaused) {
  AtHome h;
  const core::GrowResult grown = h.slurm.grow(preemptable_onto(h.id, "n1"));
  ASSERT_TRUE(grown.ok) << grown.error;
  const std::uint32_t satellite = grown.satellites.at("n1");
  h.slurm.set_time(50.0);
  EXPECT_TRUE(h.slurm.take_node(1));
  EXPECT_EQ(h.slurm.regular_waiting(), 0);
  EXPECT_TRUE(h.slurm.regular_waits().empty());
  EXPECT_EQ(h.slurm.reclaims(), 1);
  EXPECT_EQ(h.slurm.preemptions(), 1);
  EXPECT_EQ(h.slurm.pauses(), 1);
  EXPECT_EQ(h.slurm.requeues(), 0);
  EXPECT_EQ(h.slurm.held_hole_nodes(), 0);
  EXPECT_EQ(h.slurm.hole_nodes(), 2);
  EXPECT_TRUE(h.slurm.running(h.id));
  EXPECT_TRUE(h.slurm.nodes_of(h.id).empty());
  const Snapshot s = poll(h.slurm);
  const Job* preempted = core::find_job(s, satellite);
  ASSERT_NE(preempted, nullptr) << "the preempted satellite is not listed";
  EXPECT_EQ(preempted->state, JobState::finished);
  EXPECT_TRUE(preempted->preempted);
  EXPECT_EQ(s.nodes[1].state, NodeState::allocated);  // the regular job's

  // gaptraind's release of it comes too late and changes nothing: n1 stays the regular job's.
  EXPECT_TRUE(h.slurm.release({satellite}).ok);
  EXPECT_EQ(h.slurm.pauses(), 1);
  EXPECT_FALSE(h.slurm.grow(preemptable_onto(h.id, "n1")).ok);
  EXPECT_TRUE(h.slurm.free_node(1, kUnknownEnd) == kUnknownEnd);
  EXPECT_EQ(h.slurm.held_hole_nodes(), 0);

  h.slurm.set_time(50.0 + 300.0);
  EXPECT_EQ(core::find_job(poll(h.slurm), satellite), nullptr);  // MinJobAge passed
  ASSERT_TRUE(h.slurm.grow(preemptable_onto(h.id, "n2")).ok);
  EXPECT_EQ(h.slurm.nodes_of(h.id), (std::vector<int>{2}));
}

TEST(ReplayedSlurmHome, ReleasingEverySatelliteOfAJobAtHomePausesIt) {
  AtHome h;
  const core::GrowResult grown = h.slurm.grow(preemptable_onto(h.id, "n0"));
  ASSERT_TRUE(grown.ok) << grown.error;
  const core::GrowResult more = h.slurm.grow(preemptable_onto(h.id, "n1"));
  ASSERT_TRUE(more.ok) << more.error;
  EXPECT_TRUE(h.slurm.release({grown.satellites.at("n0")}).ok);
  EXPECT_EQ(h.slurm.pauses(), 0);  // it still trains on n1
  EXPECT_TRUE(h.slurm.release({more.satellites.at("n1")}).ok);
  EXPECT_EQ(h.slurm.pauses(), 1);
  EXPECT_TRUE(h.slurm.running(h.id));
}

// Only a satellite in the preemptable QOS is Slurm's to take: one in another QOS, a job's own
// node, and any satellite where no QOS is preemptable (today's replay) wait for gaptraind.
TEST(ReplayedSlurmHome, WhatIsNotInThePreemptableQosWaitsForGaptraind) {
  AtHome h;
  ASSERT_TRUE(h.slurm.grow(grow_onto(h.id, "n1")).ok);  // the user's QOS
  EXPECT_TRUE(h.slurm.take_node(1));
  EXPECT_EQ(h.slurm.regular_waiting(), 1);
  EXPECT_EQ(h.slurm.preemptions(), 0);
  EXPECT_EQ(h.slurm.reclaims(), 1);

  ReplayedSlurm today(nodes(2), 2, "elastic");
  for (int n = 0; n < 2; ++n) today.free_node(n, kUnknownEnd);
  const std::uint32_t id = today.submit_elastic("a", 1, 2);
  ASSERT_TRUE(today.admit({id, {"n0"}, 5, ""}).ok);
  ASSERT_TRUE(today.grow(preemptable_onto(id, "n1")).ok);
  EXPECT_TRUE(today.take_node(1));
  EXPECT_TRUE(today.take_node(0));
  EXPECT_EQ(today.regular_waiting(), 2);
  EXPECT_EQ(today.preemptions(), 0);
}

// Where Slurm places regular jobs, one the trace starts on a job's own node, with no idle node
// left, preempts a satellite rather than wait (Slurm tries without preemption first).
TEST(ReplayedSlurmHome, WhereSlurmPlacesWithNoIdleNodeARegularJobPreemptsASatellite) {
  ReplayedSlurm slurm(nodes(2), 2, "elastic", kEpoch, Placement::slurm, true,
                      {.preemptable_qos = "satellite"});
  for (int n = 0; n < 2; ++n) slurm.free_node(n, kUnknownEnd);
  const std::uint32_t id = slurm.submit_elastic("a", 1, 2);
  ASSERT_TRUE(slurm.admit({id, {"n0"}, 5, ""}).ok);  // today's mode: n0 is its own
  ASSERT_TRUE(slurm.grow(preemptable_onto(id, "n1")).ok);
  EXPECT_TRUE(slurm.take_node(0));
  EXPECT_EQ(slurm.regular_waiting(), 0);
  EXPECT_EQ(slurm.preemptions(), 1);
  EXPECT_EQ(slurm.placed(0), 1);  // the regular job runs on n1
  EXPECT_EQ(slurm.nodes_of(id), (std::vector<int>{0}));
  EXPECT_EQ(slurm.pauses(), 0);  // not at home
}

}  // namespace
}  // namespace gaptrain::sim::replayed_slurm_test
