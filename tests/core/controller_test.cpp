#include "core/controller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gaptrain::core::controller_test {
namespace {

constexpr std::int64_t kWall = 1'700'000'000;

// Every call succeeds; nothing is recorded (these tests look at the model and the notes).
class AgreeingSlurm final : public SlurmActions {
 public:
  ActionResult shrink(const ShrinkRequest&) override { return {true, ""}; }
  GrowResult grow(const GrowRequest&) override { return {true, "", {}}; }
  ActionResult release(const std::vector<std::uint32_t>&) override { return {true, ""}; }
  ActionResult set_time_limit(std::uint32_t, std::uint32_t) override { return {true, ""}; }
  ActionResult admit(const AdmitRequest&) override { return {true, ""}; }
  ActionResult requeue(std::uint32_t) override { return {true, ""}; }
  ActionResult park(std::uint32_t) override { return {true, ""}; }
};

CycleSettings elastic_partition() {
  CycleSettings settings;
  settings.planner.elastic_partitions = ElasticPartitions("elastic");
  return settings;
}

// n1..n3; elastic job 7 runs on n1 and n2 (batch host n1) unless `job_ended`; n3 is idle.
Snapshot cluster(std::int64_t at, bool job_ended = false) {
  Snapshot s;
  s.taken_at = at;
  s.nodes.push_back({"n1", job_ended ? NodeState::idle : NodeState::allocated, kWall - 600});
  s.nodes.push_back({"n2", job_ended ? NodeState::idle : NodeState::allocated, kWall - 600});
  s.nodes.push_back({"n3", NodeState::idle, kWall - 600});
  if (!job_ended) {
    Job job;
    job.id = 7;
    job.state = JobState::running;
    job.partition = "elastic";
    job.nodes = {"n1", "n2"};
    job.batch_host = "n1";
    job.user = "alice";
    job.user_id = 1001;
    job.start_time = kWall - 60;
    s.jobs.push_back(job);
  }
  return s;
}

protocol::JobRegistration registration(std::uint32_t id) {
  protocol::JobRegistration r;
  r.job_id = id;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 3;
  r.curve = ScalingCurve({{1, 100.0}, {3, 280.0}});
  return r;
}

bool noted(const Notes& notes, std::string_view message, std::string_view job_id) {
  return std::any_of(notes.begin(), notes.end(), [&](const Note& note) {
    return note.message == message &&
           std::any_of(note.fields.begin(), note.fields.end(), [&](const NoteField& field) {
             return field.key == "JOB_ID" && field.value == job_id;
           });
  });
}

// The first poll after a restart: what still runs in Slurm is managed again with what was
// learned of it, and its user's time limit kept; what ended meanwhile is said and dropped.
TEST(Controller, TheFirstPollRestoresWhatStillRuns) {
  AgreeingSlurm slurm;
  Controller controller(slurm, elastic_partition(), ResizerSettings{});
  SavedState saved;
  saved.jobs.push_back({registration(7), 1001, kWall - 50, std::nullopt, {{12.0, 8.0}}, {}});
  saved.jobs.push_back({registration(8), 1001, kWall - 50, std::nullopt, std::nullopt, {}});
  saved.user_limits = {{7, 30}, {8, 10}};
  const Notes notes = controller.observe(cluster(kWall), Now{0.0, kWall}, &saved);
  EXPECT_TRUE(noted(notes, "elastic job restored", "7"));
  EXPECT_TRUE(noted(notes, "saved elastic job not restored", "8"));
  ASSERT_TRUE(controller.jobs().contains(7));
  EXPECT_FALSE(controller.jobs().contains(8));
  const ElasticJob& job = controller.jobs().jobs().at(7);
  EXPECT_EQ(job.costs_source, Source::learned);
  EXPECT_DOUBLE_EQ(job.up_cost_s, 12.0);
  EXPECT_EQ(controller.resizer().user_limits(), (std::map<std::uint32_t, std::uint32_t>{{7, 30}}));
  // Saved again as it was restored: a restart right after loses nothing.
  const SavedState again = controller.saved(Operation::running);
  ASSERT_EQ(again.jobs.size(), 1U);
  EXPECT_EQ(again.jobs.front().learned_costs, saved.jobs.front().learned_costs);
  EXPECT_EQ(again.user_limits, controller.resizer().user_limits());
}

// The journal learns of holes from the notes: opened, then closed when a job takes the node.
TEST(Controller, HolesThatOpenAndCloseAreNoted) {
  AgreeingSlurm slurm;
  Controller controller(slurm, elastic_partition(), ResizerSettings{});
  const auto hole_noted = [](const Notes& notes, std::string_view message) {
    return std::any_of(notes.begin(), notes.end(), [&](const Note& note) {
      return note.message == message && note.fields.front().value == "n3";
    });
  };
  EXPECT_TRUE(hole_noted(controller.observe(cluster(kWall), Now{0.0, kWall}), "hole opened"));
  Snapshot taken = cluster(kWall + 10);
  taken.nodes.back().state = NodeState::allocated;
  EXPECT_TRUE(hole_noted(controller.observe(taken, Now{10.0, kWall + 10}), "hole closed"));
}

// With a history (the daemon's), a job's nodes and end are followed from the polls; without
// one (the simulator's), none is kept.
TEST(Controller, AJobThatEndsIsForgottenAndItsHistoryEnds) {
  AgreeingSlurm slurm;
  Controller controller(slurm, elastic_partition(), ResizerSettings{}, HistoryLimits{});
  (void)controller.observe(cluster(kWall), Now{0.0, kWall});
  ASSERT_FALSE(controller.add(registration(7), kWall));
  ASSERT_NE(controller.history(), nullptr);
  // As the daemon does: a copy decides (on its worker), touching no history; the original takes
  // the decision into the histories it shares with the copy.
  Controller copy = controller;
  EXPECT_EQ(copy.history(), controller.history());
  const CycleOutcome outcome = copy.decide(Now{0.0, kWall});
  EXPECT_EQ(controller.history()->find(7), nullptr);
  controller.record(outcome, Now{0.0, kWall});
  const JobRecord* record = controller.history()->find(7);
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->user, "alice");
  EXPECT_FALSE(record->ended_at);

  const Notes notes = controller.observe(cluster(kWall + 30, true), Now{30.0, kWall + 30});
  EXPECT_TRUE(noted(notes, "elastic job ended, forgotten", "7"));
  EXPECT_FALSE(controller.jobs().contains(7));
  EXPECT_TRUE(controller.history()->find(7)->ended_at);

  Controller simulated(slurm, elastic_partition(), ResizerSettings{});
  EXPECT_EQ(simulated.history(), nullptr);
}

}  // namespace
}  // namespace gaptrain::core::controller_test
