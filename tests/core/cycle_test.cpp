// One decision cycle (core/cycle.hpp) against a recording fake of Slurm: the reclaims are
// computed once, over the nodes the jobs hold before their drains, so a node already on its
// way back serves the regular job that waits instead of another node being taken.
#include "core/cycle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/holes.hpp"

namespace gaptrain::core::cycle_test {
namespace {

using Nodes = std::vector<std::string>;
constexpr std::int64_t kWall = 1'700'000'000;

// Answers every call with success and records the shrinks and requeues.
class RecordingSlurm final : public SlurmActions {
 public:
  ActionResult shrink(const ShrinkRequest& r) override {
    shrinks.push_back(r);
    return {true, ""};
  }
  GrowResult grow(const GrowRequest& r) override {
    GrowResult result{true, "", {}};
    for (const std::string& node : r.add_nodes) result.satellites[node] = next_satellite++;
    return result;
  }
  ActionResult release(const std::vector<std::uint32_t>&) override { return {true, ""}; }
  ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override {
    limits.emplace_back(job_id, minutes);
    return {true, ""};
  }
  ActionResult admit(const AdmitRequest&) override { return {true, ""}; }
  ActionResult requeue(std::uint32_t job_id) override {
    requeues.push_back(job_id);
    if (refuse_requeues) return {false, "Job is pending execution"};
    return {true, ""};
  }
  ActionResult park(std::uint32_t) override { return {true, ""}; }

  std::uint32_t next_satellite = 100;
  std::vector<ShrinkRequest> shrinks;
  std::vector<std::uint32_t> requeues;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> limits;  // job, minutes
  bool refuse_requeues = false;
};

class CycleTest : public ::testing::Test {
 protected:
  // n1..n4, all held by elastic job 7 (batch host n1, min 1, max 4), its launcher running a
  // step on each; the allocator has asked it to let go of `allocator_drain` (not acked yet;
  // none when empty). The job asks for `notice_s` of notice (empty: the default).
  void start(const Nodes& allocator_drain, std::optional<double> notice_s = std::nullopt) {
    const Nodes all = {"n1", "n2", "n3", "n4"};
    for (const std::string& name : all) {
      snapshot.nodes.push_back({name, NodeState::allocated, kWall - 600});
    }
    snapshot.taken_at = kWall;
    Job job;
    job.id = 7;
    job.state = JobState::running;
    job.partition = "elastic";
    job.nodes = all;
    job.batch_host = "n1";
    job.start_time = kWall - 60;
    job.end_time = kWall + 240;
    snapshot.jobs.push_back(job);
    protocol::JobRegistration registration;
    registration.job_id = 7;
    registration.min_nodes = 1;
    registration.max_nodes = 4;
    registration.curve = ScalingCurve({{1, 100.0}, {4, 400.0}});
    registration.up_cost_s = 10.0;
    registration.down_cost_s = 10.0;
    registration.notice_s = notice_s;
    ASSERT_FALSE(elastic.add(registration, &snapshot.jobs.front(), "elastic", kWall));
    protocol::LauncherReport report;
    report.job_id = 7;
    report.running = all;
    ASSERT_TRUE(elastic.report(report, kWall, 0.0));
    if (allocator_drain.empty()) return;

    Nodes keep;
    std::copy_if(all.begin(), all.end(), std::back_inserter(keep), [&](const std::string& n) {
      return std::find(allocator_drain.begin(), allocator_drain.end(), n) == allocator_drain.end();
    });
    Plan allocator;
    allocator.actions.push_back({ActionKind::shrink, 7, keep, allocator_drain, "allocator", 0});
    resizer.apply(allocator, snapshot, elastic, Now{0.0, kWall});
    ASSERT_EQ(resizer.drains().at(7).drain, allocator_drain);
    ASSERT_EQ(resizer.drains().at(7).waiting_job, 0U);
    resizer.take_notes();
  }

  // Regular job 42 of partition "regular" (which has every node) waits for `count` nodes.
  void regular_job_waits(std::uint32_t count) {
    Job job;
    job.id = 42;
    job.state = JobState::pending;
    job.partition = "regular";
    job.min_nodes = count;
    job.priority = 100;
    job.reason = PendingReason::resources;
    snapshot.jobs.push_back(job);
  }

  // Regular job 43 needs more nodes than there are idle and elastic ones; backfill plans it on
  // `nodes` at `start` (Unix s), once regular jobs elsewhere end.
  void regular_job_planned(const Nodes& nodes, std::int64_t start) {
    Job job;
    job.id = 43;
    job.state = JobState::pending;
    job.partition = "regular";
    job.min_nodes = 6;
    job.priority = 100;
    job.reason = PendingReason::resources;
    job.sched_nodes = nodes;
    job.start_time = start;
    snapshot.jobs.push_back(job);
  }

  CycleOutcome run_cycle(double mono, std::int64_t wall = kWall) {
    return cycle(snapshot, find_holes(snapshot), elastic, resizer, Now{mono, wall},
                 CycleSettings{});
  }

  static bool noted(const Notes& notes, const std::string& message, const std::string& node) {
    return std::any_of(notes.begin(), notes.end(), [&](const Note& note) {
      return note.message == message &&
             std::any_of(note.fields.begin(), note.fields.end(), [&](const NoteField& field) {
               return field.key == "NODE" && field.value == node;
             });
    });
  }

  RecordingSlurm slurm;
  Snapshot snapshot;
  ElasticJobs elastic;
  Resizer resizer{slurm, ResizerSettings{}};
};

TEST_F(CycleTest, ANodeDrainingForTheAllocatorServesTheRegularJobThatWaits) {
  // n2 is on its way back for the allocator; job 42 needs one node. The drain is hurried for
  // job 42 and nothing else is taken from job 7 (planning over what it keeps would have
  // reclaimed n3 as well).
  start({"n2"});
  regular_job_waits(1);
  const CycleOutcome outcome = run_cycle(1.0);
  const PendingDrain& drain = resizer.drains().at(7);
  EXPECT_EQ(drain.drain, Nodes{"n2"});
  EXPECT_EQ(drain.waiting_job, 42U);
  EXPECT_TRUE(noted(outcome.notes, "reclaim needed", "n2"));
  EXPECT_TRUE(slurm.shrinks.empty());  // the launcher has not let go yet, the grace runs
  EXPECT_TRUE(slurm.requeues.empty());
}

TEST_F(CycleTest, AJobNeedingMoreThanTheDrainingNodeGetsOneMore) {
  // Job 42 needs two nodes: n2, on its way back, and one more of job 7's own nodes (n3, the
  // first in its giving order); the batch host stays.
  start({"n2"});
  regular_job_waits(2);
  run_cycle(1.0);
  const PendingDrain& drain = resizer.drains().at(7);
  Nodes drained = drain.drain;
  std::sort(drained.begin(), drained.end());
  EXPECT_EQ(drained, (Nodes{"n2", "n3"}));
  EXPECT_EQ(drain.waiting_job, 42U);
  EXPECT_EQ(std::count(drain.keep.begin(), drain.keep.end(), "n1"), 1);
}

TEST_F(CycleTest, AnAllocatorDrainOfAnyNodeServesTheWaitingJobFirst) {
  // n4 is on its way back for the allocator; it is not the node job 42 would be given first
  // (n2), yet it is the one counted for job 42: job 7 keeps n2.
  start({"n4"});
  regular_job_waits(1);
  const CycleOutcome outcome = run_cycle(1.0);
  const PendingDrain& drain = resizer.drains().at(7);
  EXPECT_EQ(drain.drain, Nodes{"n4"});
  EXPECT_EQ(drain.waiting_job, 42U);
  EXPECT_TRUE(noted(outcome.notes, "reclaim needed", "n4"));
}

TEST_F(CycleTest, ANodeDrainingForOneRegularJobServesNoOther) {
  // n2 drains for job 42; job 43 comes to wait for one node too. It gets n3 at once (not n2,
  // which is job 42's), and neither job is given a third node while the drain lasts.
  start({"n2"});
  regular_job_waits(1);
  snapshot.jobs.back().priority = 200;
  run_cycle(1.0);
  ASSERT_EQ(resizer.drains().at(7).waiting_job, 42U);
  Job second = snapshot.jobs.back();
  second.id = 43;
  second.priority = 100;
  snapshot.jobs.push_back(second);
  run_cycle(1.2);
  EXPECT_EQ(resizer.drains().at(7).drain, (Nodes{"n2", "n3"}));
  EXPECT_EQ(resizer.drains().at(7).waiting_jobs, (std::set<std::uint32_t>{42, 43}));
  run_cycle(1.4);
  EXPECT_EQ(resizer.drains().at(7).drain, (Nodes{"n2", "n3"}));
  EXPECT_TRUE(slurm.shrinks.empty());
}

TEST_F(CycleTest, OneDrainForSeveralWaitingJobsServesEachOfThem) {
  // Jobs 42, 43 and 44 wait for a node each: one shrink drains n2, n3, n4 for the three. At the
  // next poll, the drain in flight, none of them is given another node: before, only the last
  // was counted served, and the other two took the batch host, a requeue.
  start({});
  for (const std::uint32_t id : {42U, 43U, 44U}) {
    regular_job_waits(1);
    snapshot.jobs.back().id = id;
  }
  run_cycle(1.0);
  const PendingDrain& drain = resizer.drains().at(7);
  EXPECT_EQ(drain.kind, ActionKind::shrink);
  EXPECT_EQ(drain.waiting_jobs, (std::set<std::uint32_t>{42, 43, 44}));
  Nodes drained = drain.drain;
  std::sort(drained.begin(), drained.end());
  ASSERT_EQ(drained, (Nodes{"n2", "n3", "n4"}));
  std::set<std::uint32_t> going;
  for (const std::string& node : drained) going.insert(drain.going_to(node));
  EXPECT_EQ(going, (std::set<std::uint32_t>{42, 43, 44}));
  run_cycle(1.2);
  EXPECT_EQ(resizer.drains().at(7).kind, ActionKind::shrink);
  EXPECT_EQ(resizer.drains().at(7).drain.size(), 3U);
  EXPECT_TRUE(slurm.requeues.empty());
}

// Equal share (a comparison policy of `gaptrain simulate`) splits what it sees; while n2 is
// being drained it sees one node less, and re-sharing then made jobs shrink off nodes to grow
// back onto them a poll later (9.3 M rescales in the KTH year). It waits for the drain.
TEST_F(CycleTest, EqualShareDoesNotReshareWhileADrainIsInFlight) {
  start({"n2"});
  CycleSettings equal_share;
  equal_share.planner.equal_share = true;
  const CycleOutcome waiting =
      cycle(snapshot, find_holes(snapshot), elastic, resizer, Now{1.0, kWall}, equal_share);
  EXPECT_FALSE(waiting.allocation) << "re-shared while n2 drains";
  EXPECT_EQ(resizer.drains().at(7).drain, Nodes{"n2"});
  // Once the launcher let go of n2, the drain completes and the next cycle shares again.
  protocol::LauncherReport report;
  report.job_id = 7;
  report.running = {"n1", "n3", "n4"};
  report.drained = {"n2"};
  ASSERT_TRUE(elastic.report(report, kWall, 2.0));
  cycle(snapshot, find_holes(snapshot), elastic, resizer, Now{2.0, kWall}, equal_share);
  EXPECT_TRUE(resizer.drains().empty());
  EXPECT_TRUE(cycle(snapshot, find_holes(snapshot), elastic, resizer, Now{3.0, kWall}, equal_share)
                  .allocation)
      << "a settled cluster is shared";
}

// Notice (core/notice.hpp): a node is told to its job as soon as gaptraind knows it goes and it
// is within the job's window; the reclaim itself is neither held back nor brought forward.
TEST_F(CycleTest, ARegularJobPlannedOnANodeIsNoticedBeforeItsReclaim) {
  // Job 7's lease ends at kWall + 240; job 43 is planned on n3 and n4 at kWall + 400, later
  // than that lease plus a minute: it waits for other jobs, nothing is reclaimed yet. Job 7
  // asked for ten minutes of notice (600 s, the default cap): it is told now.
  start({}, 600.0);
  regular_job_planned({"n3", "n4"}, kWall + 400);
  const CycleOutcome outcome = run_cycle(1.0);
  EXPECT_TRUE(resizer.drains().empty()) << "the reclaim is not brought forward";
  const std::map<std::string, double> expected{{"n3", kWall + 400.0}, {"n4", kWall + 400.0}};
  EXPECT_EQ(resizer.notice(7), expected);
  EXPECT_TRUE(noted(outcome.notes, "notice given", "n3"));
  EXPECT_TRUE(noted(outcome.notes, "notice given", "n4"));
  // The next poll sees the same plan: nothing new to journal.
  EXPECT_FALSE(noted(run_cycle(1.5).notes, "notice given", "n3"));
}

TEST_F(CycleTest, APlanOnTheBatchHostIsNoticedOnTheNodeTheReclaimWillTake) {
  // Job 7 grew into n4 (a satellite); backfill plans job 43 on n1, its batch host. The reclaim
  // will not take n1 (that is a requeue) but a stand-in, a satellite first: n4 is told, n1 not.
  start({}, 600.0);
  elastic.resized(7, {"n1", "n2", "n3", "n4"}, {{"n4", 100}}, 0.0);
  regular_job_planned({"n1"}, kWall + 400);
  const CycleOutcome outcome = run_cycle(1.0);
  EXPECT_TRUE(resizer.drains().empty()) << "the reclaim is not brought forward";
  EXPECT_EQ(resizer.notice(7), (std::map<std::string, double>{{"n4", kWall + 400.0}}));
  EXPECT_TRUE(noted(outcome.notes, "notice given", "n4"));
  EXPECT_FALSE(noted(outcome.notes, "notice given", "n1"));
}

TEST_F(CycleTest, APlanBeyondTheJobsWindowIsNoticedOnceItIsWithin) {
  // The job asked for none: 30 s (kDefaultNoticeS). Job 43 is planned at kWall + 400.
  start({});
  regular_job_planned({"n3"}, kWall + 400);
  run_cycle(1.0);
  EXPECT_TRUE(resizer.notice(7).empty());
  // 30 s before that start (backfill's plan unchanged, job 7's lease capped before it).
  snapshot.jobs.front().end_time = kWall + 330;
  run_cycle(371.0, kWall + 370);
  EXPECT_EQ(resizer.notice(7), (std::map<std::string, double>{{"n3", kWall + 400.0}}));
}

TEST_F(CycleTest, AReclaimsNoticeIsItsDeadlineToTheSubSecond) {
  // 0.6 s into a second: the node goes at the deadline, not at the whole second before it
  // (the job lost that much of its grace, and its launcher signalled the leaving worker early).
  start({}, 600.0);
  regular_job_waits(1);
  cycle(snapshot, find_holes(snapshot), elastic, resizer, Now{1.0, kWall, kWall + 0.6},
        CycleSettings{});
  ASSERT_EQ(resizer.notice(7).count("n2"), 1U);
  EXPECT_DOUBLE_EQ(resizer.notice(7).at("n2"), kWall + 0.6 + kReclaimGraceS.default_value);
}

TEST_F(CycleTest, AReclaimIsNoticedAtItsDrainDeadlineAndNotHeldBack) {
  // Job 42 waits for one node now: n2 is reclaimed at once, its drain ends by the reclaim
  // grace; that is the notice, whatever the job asked. Without notices (max_notice_s 0) the
  // same drain is requested with the same deadline.
  start({}, 600.0);
  regular_job_waits(1);
  const CycleOutcome outcome = run_cycle(1.0);
  const PendingDrain& drain = resizer.drains().at(7);
  EXPECT_EQ(drain.drain, Nodes{"n2"});
  EXPECT_EQ(resizer.notice(7),
            (std::map<std::string, double>{{"n2", kWall + kReclaimGraceS.default_value}}));
  EXPECT_TRUE(noted(outcome.notes, "notice given", "n2"));

  RecordingSlurm quiet_slurm;
  ResizerSettings off;
  off.max_notice_s = 0.0;
  Resizer quiet{quiet_slurm, off};
  ElasticJobs same = elastic;
  cycle(snapshot, find_holes(snapshot), same, quiet, Now{1.0, kWall}, CycleSettings{});
  EXPECT_TRUE(quiet.notice(7).empty());
  ASSERT_TRUE(quiet.drains().contains(7));
  EXPECT_EQ(quiet.drains().at(7).drain, drain.drain);
  EXPECT_EQ(quiet.drains().at(7).deadline, drain.deadline);
}

TEST_F(CycleTest, ANoticeIsWithdrawnWhenThePlanChanges) {
  start({}, 600.0);
  regular_job_planned({"n3"}, kWall + 400);
  run_cycle(1.0);
  ASSERT_EQ(resizer.notice(7).size(), 1U);
  snapshot.jobs.pop_back();  // job 43 was cancelled
  const CycleOutcome outcome = run_cycle(2.0);
  EXPECT_TRUE(resizer.notice(7).empty());
  EXPECT_TRUE(noted(outcome.notes, "notice withdrawn", "n3"));
}

TEST_F(CycleTest, NoNoticeWhenTheAdminCapIsZero) {
  start({}, 600.0);
  regular_job_planned({"n3"}, kWall + 400);
  ResizerSettings off;
  off.max_notice_s = 0.0;
  resizer.set_settings(off);
  const CycleOutcome outcome = run_cycle(1.0);
  EXPECT_TRUE(resizer.notice(7).empty());
  EXPECT_FALSE(noted(outcome.notes, "notice given", "n3"));
}

// A regular job pinned (-w) to job 7's batch host n1, planned by backfill on it at the end of
// job 7's lease (its 5 minutes end at kWall + 240): n1 is taken at once, and job 7 is requeued.
// Its lease is renewed meanwhile, also while the requeue fails: a lease that ran out would end
// the job TIMEOUT (before, it was not renewed while a node of it was reclaimed, nor past the
// plan on n1, and the job ended TIMEOUT there).
TEST_F(CycleTest, AJobsLeaseIsRenewedWhileItsBatchHostIsReclaimed) {
  start({});
  snapshot.jobs.front().time_limit_minutes = 5;  // its lease; it was submitted with -t 60
  resizer.restore_user_limits({{7, 60}});
  regular_job_planned({"n1"}, kWall + 240);
  Job& pinned = snapshot.jobs.back();
  pinned.min_nodes = 1;
  pinned.required_nodes = {"n1"};
  slurm.refuse_requeues = true;
  run_cycle(100.0, kWall + 100);  // 140 s of the lease left: less than half a lease
  ASSERT_TRUE(resizer.drains().contains(7));
  EXPECT_EQ(resizer.drains().at(7).kind, ActionKind::requeue);
  EXPECT_EQ(resizer.drains().at(7).waiting_job, 43U);
  ASSERT_EQ(slurm.limits.size(), 1U) << "job 7's lease was not renewed while n1 is reclaimed";
  EXPECT_EQ(slurm.limits[0], (std::pair<std::uint32_t, std::uint32_t>{7, 8}));
  snapshot.jobs.front().time_limit_minutes = 8;
  // The requeue is refused (the launcher never acked: the grace ran out) and retried; the
  // lease goes on being kept meanwhile.
  run_cycle(102.0, kWall + 102);
  EXPECT_EQ(slurm.requeues, std::vector<std::uint32_t>{7});
  ASSERT_TRUE(resizer.drains().contains(7));
  run_cycle(300.0, kWall + 300);  // 120 s left of 8 minutes
  ASSERT_EQ(slurm.limits.size(), 2U) << "job 7's lease lapses while its requeue fails";
  EXPECT_EQ(slurm.limits[1], (std::pair<std::uint32_t, std::uint32_t>{7, 11}));
}

// A reclaim of a satellite: the satellite's lease is not renewed (it ends with the node going
// back), the job's own is (before, a reclaimed satellite stopped the job's renewal too).
TEST_F(CycleTest, AReclaimedSatelliteStopsOnlyItsOwnLease) {
  start({});
  snapshot.jobs.front().time_limit_minutes = 5;  // its lease; it was submitted with -t 60
  resizer.restore_user_limits({{7, 60}});
  Job satellite = snapshot.jobs.front();
  satellite.id = 100;
  satellite.name = satellite_name(7);
  satellite.nodes = {"n4"};
  satellite.batch_host = "n4";
  snapshot.jobs.front().nodes = {"n1", "n2", "n3"};
  snapshot.jobs.push_back(satellite);
  elastic.resized(7, {"n1", "n2", "n3", "n4"}, {{"n4", 100}}, 0.0);
  regular_job_waits(1);
  snapshot.jobs.back().required_nodes = {"n4"};
  run_cycle(100.0, kWall + 100);
  ASSERT_TRUE(resizer.drains().contains(7));
  EXPECT_EQ(resizer.drains().at(7).drain, Nodes{"n4"});
  EXPECT_EQ(slurm.limits, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{7, 8}}));
}

}  // namespace
}  // namespace gaptrain::core::cycle_test
