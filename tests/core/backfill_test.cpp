// The elastic queue backfills (queue_policy.hpp): a job that cannot start now holds nobody
// back, and the jobs that went past it give way once it could start in their place. Through
// whole decision cycles (core/cycle.hpp) against a recording fake of Slurm.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/cycle.hpp"
#include "core/holes.hpp"
#include "core/parking.hpp"

namespace gaptrain::core::backfill_test {
namespace {

using Nodes = std::vector<std::string>;
constexpr std::int64_t kWall = 1'700'000'000;

// Answers every call with success and records the admissions and requeues.
class RecordingSlurm final : public SlurmActions {
 public:
  ActionResult shrink(const ShrinkRequest&) override { return {true, ""}; }
  GrowResult grow(const GrowRequest& r) override {
    GrowResult result{true, "", {}};
    for (const std::string& node : r.add_nodes) result.satellites[node] = next_satellite++;
    return result;
  }
  ActionResult release(const std::vector<std::uint32_t>&) override { return {true, ""}; }
  ActionResult set_time_limit(std::uint32_t, std::uint32_t) override { return {true, ""}; }
  ActionResult admit(const AdmitRequest& r) override {
    admits.push_back(r.job_id);
    return {true, ""};
  }
  ActionResult requeue(std::uint32_t job_id) override {
    requeues.push_back(job_id);
    return {true, ""};
  }
  ActionResult park(std::uint32_t) override { return {true, ""}; }

  std::uint32_t next_satellite = 1000;
  std::vector<std::uint32_t> admits;
  std::vector<std::uint32_t> requeues;
};

Job running(std::uint32_t id, const Nodes& nodes, const std::string& partition, std::uint32_t uid) {
  Job job;
  job.id = id;
  job.state = JobState::running;
  job.partition = partition;
  job.nodes = nodes;
  job.batch_host = nodes.front();
  job.user_id = uid;
  job.user = "user" + std::to_string(uid);
  job.start_time = kWall - 60;
  job.end_time = kWall + 240;
  return job;
}

// A held job of the elastic partition (what `gaptrain submit` leaves for gaptraind to admit).
Job held(std::uint32_t id, std::uint32_t min, std::uint32_t max, std::uint32_t priority,
         std::uint32_t uid) {
  Job job;
  job.id = id;
  job.state = JobState::pending;
  job.partition = "elastic";
  job.held = true;
  job.min_nodes = min;
  job.max_nodes = max;
  job.priority = priority;
  job.user_id = uid;
  job.user = "user" + std::to_string(uid);
  job.submit_time = kWall - 100 + id;
  job.eligible_time = kWall - 100;
  return job;
}

protocol::JobRegistration registration(std::uint32_t id, int min, int max) {
  protocol::JobRegistration r;
  r.job_id = id;
  r.min_nodes = min;
  r.max_nodes = max;
  return r;
}

class Backfill : public ::testing::Test {
 protected:
  // The probe's world: six nodes; elastic job 10 holds its batch host n1, a regular job n4-n6,
  // n2 and n3 are idle. Job 242 asks for the whole partition (6-6), job 243, behind it, for
  // one node.
  void SetUp() override {
    snapshot.taken_at = kWall;
    for (const char* name : {"n1", "n2", "n3", "n4", "n5", "n6"}) {
      const bool busy = std::string(name) != "n2" && std::string(name) != "n3";
      snapshot.nodes.push_back({name, busy ? NodeState::allocated : NodeState::idle, kWall - 600});
    }
    snapshot.jobs.push_back(running(10, {"n1"}, "elastic", 1001));
    snapshot.jobs.push_back(running(50, {"n4", "n5", "n6"}, "regular", 1009));
    snapshot.jobs.push_back(held(242, 6, 6, 200, 1002));
    snapshot.jobs.push_back(held(243, 1, 1, 100, 1003));
    ASSERT_FALSE(elastic.add(registration(10, 1, 1), &snapshot.jobs.front(), "elastic", kWall));
  }

  CycleOutcome run_cycle(double mono) {
    snapshot.taken_at = kWall + static_cast<std::int64_t>(mono);
    elastic.refresh(snapshot, mono);
    return cycle(snapshot, find_holes(snapshot), elastic, resizer,
                 Now{mono, kWall + static_cast<std::int64_t>(mono)}, CycleSettings{});
  }

  Job& job(std::uint32_t id) { return *std::ranges::find(snapshot.jobs, id, &Job::id); }

  static std::string why_waiting(const CycleOutcome& outcome, std::uint32_t id) {
    for (const auto& [job_id, why] : outcome.waiting)
      if (job_id == id) return why;
    return "";
  }

  RecordingSlurm slurm;
  Snapshot snapshot;
  ElasticJobs elastic;
  Resizer resizer{slurm, ResizerSettings{}};
};

TEST_F(Backfill, AJobThatCannotStartNowHoldsNobodyBackAndTheOvertakerGivesWayLater) {
  // 242 cannot start (6 nodes, 2 free): 243 goes past it.
  const CycleOutcome first = run_cycle(0.0);
  EXPECT_EQ(slurm.admits, std::vector<std::uint32_t>{243});
  EXPECT_NE(why_waiting(first, 242).find("waits for 6 nodes"), std::string::npos)
      << why_waiting(first, 242);

  // Slurm starts 243 on n2 and its launcher registers.
  Job& small = job(243);
  small.state = JobState::running;
  small.held = false;
  small.nodes = {"n2"};
  small.batch_host = "n2";
  snapshot.nodes[1].state = NodeState::allocated;
  ASSERT_FALSE(elastic.add(registration(243, 1, 1), &small, "elastic", kWall + 5));
  protocol::LauncherReport report;  // its launcher runs a step there (a drain waits for its ack)
  report.job_id = 243;
  report.running = {"n2"};
  ASSERT_TRUE(elastic.report(report, kWall + 5, 5.0));
  run_cycle(5.0);
  EXPECT_TRUE(slurm.requeues.empty());
  EXPECT_FALSE(resizer.drains().contains(243));

  // Job 10 and the regular job end: 242 fits, but for 243's node. 243 gives way (a requeue:
  // it resumes behind 242), nothing else is admitted in the meantime.
  std::erase_if(snapshot.jobs, [](const Job& j) { return j.id == 10 || j.id == 50; });
  for (Node& node : snapshot.nodes)
    if (node.name != "n2") node.state = NodeState::idle;
  const CycleOutcome third = run_cycle(10.0);
  ASSERT_TRUE(resizer.drains().contains(243));
  EXPECT_EQ(resizer.drains().at(243).kind, ActionKind::requeue);
  EXPECT_NE(resizer.drains().at(243).reason.find("job 242"), std::string::npos)
      << resizer.drains().at(243).reason;
  EXPECT_TRUE(slurm.requeues.empty()) << "not before its launcher let go";
  EXPECT_EQ(slurm.admits, std::vector<std::uint32_t>{243});
  EXPECT_NE(why_waiting(third, 242).find("give way"), std::string::npos) << why_waiting(third, 242);

  // Its launcher lets go: 243 is requeued, and comes back parked, a priority above 242's (a
  // parked job goes before a held one). It stays behind 242, which is admitted.
  report.running = {};
  report.drained = {"n2"};
  ASSERT_TRUE(elastic.report(report, kWall + 11, 11.0));
  run_cycle(11.0);
  ASSERT_EQ(slurm.requeues, std::vector<std::uint32_t>{243});
  Job& requeued = job(243);  // (the jobs before it were erased: `small` is stale)
  requeued = held(243, 1, 1, 300, 1003);
  requeued.held = false;
  requeued.eligible_time = kWall + kParkForS;
  snapshot.nodes[1].state = NodeState::idle;
  const CycleOutcome fourth = run_cycle(15.0);
  EXPECT_EQ(slurm.admits, (std::vector<std::uint32_t>{243, 242}));
  EXPECT_NE(why_waiting(fourth, 243).find("waits for 1 nodes"), std::string::npos)
      << why_waiting(fourth, 243);
}

// A job admitted in its turn, ahead of the job that waits, is never requeued for it.
TEST_F(Backfill, AJobAdmittedInItsTurnDoesNotGiveWay) {
  job(243).priority = 300;  // ahead of 242 now
  run_cycle(0.0);
  ASSERT_EQ(slurm.admits, std::vector<std::uint32_t>{243});
  Job& small = job(243);
  small.state = JobState::running;
  small.held = false;
  small.nodes = {"n2"};
  small.batch_host = "n2";
  snapshot.nodes[1].state = NodeState::allocated;
  ASSERT_FALSE(elastic.add(registration(243, 1, 1), &small, "elastic", kWall + 5));
  std::erase_if(snapshot.jobs, [](const Job& j) { return j.id == 10 || j.id == 50; });
  for (Node& node : snapshot.nodes)
    if (node.name != "n2") node.state = NodeState::idle;
  const CycleOutcome later = run_cycle(10.0);
  EXPECT_FALSE(resizer.drains().contains(243));
  EXPECT_NE(why_waiting(later, 242).find("waits for 6 nodes"), std::string::npos)
      << why_waiting(later, 242);
}

}  // namespace
}  // namespace gaptrain::core::backfill_test
