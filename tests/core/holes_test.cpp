#include "core/holes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gaptrain::core::holes_test {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

Snapshot four_idle_nodes() {
  Snapshot s;
  s.taken_at = kNow;
  for (const char* name : {"n1", "n2", "n3", "n4"}) {
    s.nodes.push_back({name, NodeState::idle, kNow - 60});
  }
  return s;
}

Job pending(std::uint32_t id, std::int64_t start, std::vector<std::string> sched_nodes) {
  Job job;
  job.id = id;
  job.state = JobState::pending;
  job.start_time = start;
  job.sched_nodes = std::move(sched_nodes);
  return job;
}

const Hole* hole_on(const std::vector<Hole>& holes, const std::string& node) {
  for (const Hole& hole : holes) {
    if (hole.node == node) return &hole;
  }
  return nullptr;
}

TEST(Holes, IdleNodesWithoutPlansAreHolesOfUnknownEnd) {
  const std::vector<Hole> holes = find_holes(four_idle_nodes());
  ASSERT_EQ(holes.size(), 4U);
  for (const Hole& hole : holes) {
    EXPECT_EQ(hole.since, kNow - 60);
    EXPECT_FALSE(hole.predicted_end);
    EXPECT_FALSE(hole.next_job);
  }
}

TEST(Holes, PendingJobPlannedOnNodesEndsTheirHolesAtItsStart) {
  Snapshot s = four_idle_nodes();
  s.nodes[1].state = NodeState::planned;  // backfill marks the nodes it reserves
  s.nodes[2].state = NodeState::planned;
  s.jobs.push_back(pending(7, kNow + 300, {"n2", "n3"}));
  const std::vector<Hole> holes = find_holes(s);
  ASSERT_EQ(holes.size(), 4U);
  for (const char* node : {"n2", "n3"}) {
    const Hole* hole = hole_on(holes, node);
    ASSERT_NE(hole, nullptr);
    EXPECT_EQ(hole->predicted_end, kNow + 300) << node;
    EXPECT_EQ(hole->next_job, 7U) << node;
  }
  for (const char* node : {"n1", "n4"}) {
    const Hole* hole = hole_on(holes, node);
    ASSERT_NE(hole, nullptr) << node;
    EXPECT_FALSE(hole->predicted_end) << node;
  }
}

TEST(Holes, EarliestOfSeveralPlansWins) {
  Snapshot s = four_idle_nodes();
  s.jobs.push_back(pending(8, kNow + 900, {"n1", "n2"}));
  s.jobs.push_back(pending(9, kNow + 200, {"n2"}));
  s.jobs.push_back(pending(10, kNow + 500, {"n2", "n3", "n4"}));
  const std::vector<Hole> holes = find_holes(s);
  EXPECT_EQ(hole_on(holes, "n1")->predicted_end, kNow + 900);
  EXPECT_EQ(hole_on(holes, "n2")->predicted_end, kNow + 200);
  EXPECT_EQ(hole_on(holes, "n2")->next_job, 9U);
  EXPECT_EQ(hole_on(holes, "n3")->predicted_end, kNow + 500);
  EXPECT_EQ(hole_on(holes, "n3")->next_job, 10U);
}

TEST(Holes, PendingJobWithoutPlanSaysNothing) {
  Snapshot s = four_idle_nodes();
  s.jobs.push_back(pending(11, kNow + 100, {}));  // start_time but no sched_nodes
  s.jobs.push_back(pending(12, 0, {"n1"}));       // sched_nodes but no start_time
  for (const Hole& hole : find_holes(s)) EXPECT_FALSE(hole.predicted_end) << hole.node;
}

TEST(Holes, NextReservationEndsTheHoleWhenEarlier) {
  Snapshot s = four_idle_nodes();
  s.jobs.push_back(pending(13, kNow + 600, {"n1", "n2"}));
  s.reservations.push_back({"maint", kNow + 120, kNow + 7200, {"n2", "n3"}});
  const std::vector<Hole> holes = find_holes(s);
  EXPECT_EQ(hole_on(holes, "n1")->predicted_end, kNow + 600);
  const Hole* n2 = hole_on(holes, "n2");
  EXPECT_EQ(n2->predicted_end, kNow + 120);
  EXPECT_FALSE(n2->next_job);
  EXPECT_EQ(n2->reservation, "maint");
  EXPECT_EQ(hole_on(holes, "n3")->predicted_end, kNow + 120);
}

TEST(Holes, ActiveReservationIsNoHole) {
  Snapshot s = four_idle_nodes();
  s.reservations.push_back({"users", kNow - 10, kNow + 3600, {"n1"}});
  s.reservations.push_back({"past", kNow - 7200, kNow - 3600, {"n2"}});
  const std::vector<Hole> holes = find_holes(s);
  EXPECT_EQ(hole_on(holes, "n1"), nullptr);
  const Hole* n2 = hole_on(holes, "n2");
  ASSERT_NE(n2, nullptr);
  EXPECT_FALSE(n2->predicted_end);
}

TEST(Holes, BusyDownDrainedAndCompletingNodesAreNoHoles) {
  Snapshot s = four_idle_nodes();
  s.nodes[0].state = NodeState::down;
  s.nodes[1].state = NodeState::drained;
  s.nodes[2].state = NodeState::allocated;
  s.nodes[3].state = NodeState::completing;
  EXPECT_TRUE(find_holes(s).empty());
  for (const NodeState state :
       {NodeState::mixed, NodeState::draining, NodeState::future, NodeState::unknown}) {
    s.nodes[0].state = state;
    EXPECT_TRUE(find_holes(s).empty()) << to_string(state);
  }
}

TEST(Holes, SinceFallsBackToFirstSeenAndStaysStable) {
  Snapshot s = four_idle_nodes();
  for (Node& node : s.nodes) node.last_busy = 0;  // Slurm did not say
  const std::vector<Hole> first = find_holes(s);
  EXPECT_EQ(first[0].since, kNow);
  s.taken_at = kNow + 30;
  const std::vector<Hole> second = find_holes(s, first);
  EXPECT_EQ(second[0].since, kNow);
}

TEST(Holes, KeepSlurmsNodeOrder) {
  Snapshot s;
  s.taken_at = kNow;
  for (int i = 1; i <= 12; ++i) {
    s.nodes.push_back({"n" + std::to_string(i), NodeState::idle, kNow});
  }
  const std::vector<Hole> holes = find_holes(s);
  ASSERT_EQ(holes.size(), 12U);
  EXPECT_EQ(holes[1].node, "n2");
  EXPECT_EQ(holes[9].node, "n10");
}

}  // namespace
}  // namespace gaptrain::core::holes_test
