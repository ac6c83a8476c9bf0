// The resizer against a recording fake of Slurm: what it calls, when, and what the job's
// launcher is told meanwhile.
#include "core/resizer.hpp"

#include <gtest/gtest.h>

#include "core/parking.hpp"

namespace gaptrain::core::resizer_test {
namespace {

using Nodes = std::vector<std::string>;
constexpr std::int64_t kWall = 1'700'000'000;

// Records every call; answers ok unless told to fail the next ones.
class FakeSlurm final : public SlurmActions {
 public:
  ActionResult shrink(const ShrinkRequest& r) override {
    shrinks.push_back(r);
    return answer();
  }
  GrowResult grow(const GrowRequest& r) override {
    grows.push_back(r);
    const ActionResult a = answer();
    GrowResult result{a.ok, a.error, {}};
    if (a.ok) {
      for (const std::string& node : r.add_nodes) result.satellites[node] = next_satellite++;
    }
    return result;
  }
  ActionResult release(const std::vector<std::uint32_t>& ids) override {
    releases.push_back(ids);
    return answer();
  }
  ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override {
    limits.emplace_back(job_id, minutes);
    return answer();
  }
  ActionResult admit(const AdmitRequest& r) override {
    admits.push_back(r);
    return answer();
  }
  ActionResult requeue(std::uint32_t job_id) override {
    requeues.push_back(job_id);
    return answer();
  }
  ActionResult park(std::uint32_t job_id) override {
    parks.push_back(job_id);
    return answer();
  }

  int failures_left = 0;
  std::uint32_t next_satellite = 100;
  std::vector<std::vector<std::uint32_t>> releases;
  std::vector<ShrinkRequest> shrinks;
  std::vector<GrowRequest> grows;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> limits;
  std::vector<AdmitRequest> admits;
  std::vector<std::uint32_t> requeues;
  std::vector<std::uint32_t> parks;

 private:
  ActionResult answer() {
    if (failures_left > 0) {
      --failures_left;
      return {false, "Requested nodes are busy"};
    }
    return {true, ""};
  }
};

class ResizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings.drain_grace_s = 10.0;
    settings.reclaim_grace_s = 1.0;
    settings.lease_s = 300.0;
  }

  // Job 7 running on `nodes` (batch host first) in Slurm and registered with gaptrain.
  void run_job(const Nodes& nodes, std::uint32_t time_limit_minutes = 0) {
    Job job;
    job.id = 7;
    job.user_id = 1000;
    job.group_id = 100;
    job.partition = "elastic";
    job.account = "vision";
    job.qos = "train";
    job.tres_per_node = "gres/gpu:4";
    job.state = JobState::running;
    job.nodes = nodes;
    job.batch_host = nodes.front();
    job.start_time = kWall - 60;
    job.time_limit_minutes = time_limit_minutes;
    snapshot.jobs = {job};
    protocol::JobRegistration registration;
    registration.job_id = 7;
    registration.min_nodes = 1;
    registration.max_nodes = 8;
    ASSERT_FALSE(jobs.add(registration, &snapshot.jobs.front(), "elastic", kWall));
  }

  // The launcher's report: steps running on `running`, `drained` acked.
  void report(const Nodes& running, const Nodes& drained = {}) {
    protocol::LauncherReport r;
    r.job_id = 7;
    r.running = running;
    r.drained = drained;
    ASSERT_TRUE(jobs.report(r, kWall, 0.0));
  }

  static Plan plan_of(Action action) {
    Plan p;
    p.actions.push_back(std::move(action));
    return p;
  }
  static Action shrink_to(const Nodes& keep, const Nodes& drain, std::uint32_t waiting = 0) {
    return Action{ActionKind::shrink, 7, keep, drain, waiting ? "reclaim" : "allocator", waiting};
  }
  Now at(double mono) const { return Now{mono, kWall + static_cast<std::int64_t>(mono)}; }
  const Nodes& job_nodes() const { return jobs.jobs().at(7).nodes; }

  FakeSlurm slurm;
  ResizerSettings settings;
  Snapshot snapshot;
  ElasticJobs jobs;
};

TEST_F(ResizerTest, GrowsAtOnceOnTheJobsBehalfAndTellsTheLauncherTheNewNodes) {
  run_job({"n2", "n1"});
  Resizer resizer(slurm, settings);
  EXPECT_TRUE(resizer.apply(plan_of({ActionKind::grow, 7, {"n3"}, {}, "allocator"}), snapshot, jobs,
                            at(0)));
  ASSERT_EQ(slurm.grows.size(), 1U);
  EXPECT_EQ(slurm.grows[0].add_nodes, Nodes{"n3"});
  EXPECT_EQ(slurm.grows[0].partition, "elastic");
  EXPECT_EQ(slurm.grows[0].user_id, 1000U);
  EXPECT_EQ(slurm.grows[0].group_id, 100U);
  EXPECT_EQ(slurm.grows[0].account, "vision");  // charged as the job is, not the user's default
  EXPECT_EQ(slurm.grows[0].qos, "train");
  EXPECT_EQ(slurm.grows[0].tres_per_node, "gres/gpu:4");  // the job's GPUs on each new node
  EXPECT_EQ(slurm.grows[0].time_limit_minutes, 5U);       // the first lease
  EXPECT_EQ(job_nodes(), (Nodes{"n2", "n1", "n3"}));
  EXPECT_EQ(jobs.jobs().at(7).satellites, (std::map<std::string, std::uint32_t>{{"n3", 100}}));
  EXPECT_EQ(resizer.counts().done.at("grow"), 1U);
}

// Node types: a satellite asks Slurm for its node's type, as a constraint when the type
// is a feature, in its GPUs when it is a GRES type.
TEST_F(ResizerTest, SatellitesAskForTheirNodesType) {
  run_job({"n2", "n1"});
  snapshot.nodes = {{.name = "n3", .type = "a100", .type_source = NodeTypeSource::feature},
                    {.name = "n4", .type = "v100", .type_source = NodeTypeSource::gres}};
  Resizer resizer(slurm, settings);
  EXPECT_TRUE(resizer.apply(plan_of({ActionKind::grow, 7, {"n3"}, {}, "allocator"}), snapshot, jobs,
                            at(0)));
  ASSERT_EQ(slurm.grows.size(), 1U);
  EXPECT_EQ(slurm.grows[0].constraint, "a100");
  EXPECT_EQ(slurm.grows[0].tres_per_node, "gres/gpu:4");
  EXPECT_TRUE(resizer.apply(plan_of({ActionKind::grow, 7, {"n4"}, {}, "allocator"}), snapshot, jobs,
                            at(1)));
  ASSERT_EQ(slurm.grows.size(), 2U);
  EXPECT_EQ(slurm.grows[1].constraint, "");
  EXPECT_EQ(slurm.grows[1].tres_per_node, "gres/gpu:v100:4");
}

TEST(SatelliteTres, OnlyUntypedGpuCountsTakeTheGresType) {
  using enum NodeTypeSource;
  EXPECT_EQ(satellite_tres("gres/gpu:4,gres/nvme:1", "a100", gres), "gres/gpu:a100:4,gres/nvme:1");
  EXPECT_EQ(satellite_tres("gres/gpu:v100:2", "a100", gres), "gres/gpu:v100:2");
  EXPECT_EQ(satellite_tres("gres/gpu:4", "a100", feature), "gres/gpu:4");
  EXPECT_EQ(satellite_tres("", "a100", gres), "");
}

// With a satellite QOS (one the regular QOS may preempt), satellites run in it, still charged
// to the job's account: slurmctld then frees their nodes for regular jobs by itself.
TEST_F(ResizerTest, SatellitesRunInTheSatelliteQosWhereOneIsConfigured) {
  run_job({"n2", "n1"});
  settings.satellite_qos = "satellite";
  Resizer resizer(slurm, settings);
  EXPECT_TRUE(resizer.apply(plan_of({ActionKind::grow, 7, {"n3"}, {}, "allocator"}), snapshot, jobs,
                            at(0)));
  ASSERT_EQ(slurm.grows.size(), 1U);
  EXPECT_EQ(slurm.grows[0].qos, "satellite");
  EXPECT_EQ(slurm.grows[0].account, "vision");
}

// With a satellite partition, satellites are allocated there (a higher PriorityTier: a pending
// regular job does not make Slurm refuse them), else in the job's own partition.
TEST_F(ResizerTest, SatellitesAreAllocatedInTheSatellitePartitionWhereOneIsConfigured) {
  run_job({"n2", "n1"});
  {
    Resizer resizer(slurm, settings);
    resizer.apply(plan_of({ActionKind::grow, 7, {"n3"}, {}, "allocator"}), snapshot, jobs, at(0));
  }
  settings.satellite_partition = "satellites";
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::grow, 7, {"n4"}, {}, "allocator"}), snapshot, jobs, at(0));
  ASSERT_EQ(slurm.grows.size(), 2U);
  EXPECT_EQ(slurm.grows[0].partition, "elastic");
  EXPECT_EQ(slurm.grows[1].partition, "satellites");
}

TEST_F(ResizerTest, TheFirstLeaseEndsBeforeThePredictedHoleEnd) {
  // Slurm starts no elastic work on a node planned for a pending job if it would still run
  // then: a hole ending in 150 s gets a 2-minute lease, one ending sooner the 1-minute minimum.
  run_job({"n1"});
  Resizer resizer(slurm, settings);
  Action grow{ActionKind::grow, 7, {"n2"}, {}, "allocator", 0, kWall + 150};
  resizer.apply(plan_of(grow), snapshot, jobs, at(0));
  grow.nodes = {"n3"};
  grow.hole_end = kWall + 30;
  resizer.apply(plan_of(grow), snapshot, jobs, at(0));
  ASSERT_EQ(slurm.grows.size(), 2U);
  EXPECT_EQ(slurm.grows[0].time_limit_minutes, 2U);
  EXPECT_EQ(slurm.grows[1].time_limit_minutes, 1U);
}

TEST_F(ResizerTest, ShrinkWaitsForTheLaunchersAckThenKeepsTheBatchHost) {
  run_job({"n1", "n2", "n3"});
  report({"n1", "n2", "n3"});
  Resizer resizer(slurm, settings);
  EXPECT_FALSE(resizer.apply(plan_of(shrink_to({"n1"}, {"n2", "n3"})), snapshot, jobs, at(0)));
  EXPECT_EQ(resizer.draining(7), (Nodes{"n2", "n3"}));
  EXPECT_FALSE(resizer.advance(jobs, at(1)));
  EXPECT_TRUE(slurm.shrinks.empty()) << "no Slurm call before the ack or the grace";

  report({"n1", "n3"}, {"n2"});  // one step stopped, the other still stopping
  EXPECT_FALSE(resizer.advance(jobs, at(2)));
  report({"n1"}, {"n2", "n3"});
  EXPECT_TRUE(resizer.advance(jobs, at(3)));
  ASSERT_EQ(slurm.shrinks.size(), 1U);
  EXPECT_EQ(slurm.shrinks[0].keep_nodes, Nodes{"n1"});
  EXPECT_EQ(slurm.shrinks[0].batch_host, "n1");
  EXPECT_EQ(job_nodes(), Nodes{"n1"});
  EXPECT_TRUE(resizer.draining(7).empty());
}

TEST_F(ResizerTest, ShrinkGoesAheadWhenTheGraceIsOverWithoutAck) {
  run_job({"n1", "n2"});
  report({"n1", "n2"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"})), snapshot, jobs, at(0));
  EXPECT_FALSE(resizer.advance(jobs, at(9.9)));
  EXPECT_TRUE(resizer.advance(jobs, at(10.0)));
  EXPECT_EQ(slurm.shrinks.size(), 1U);
}

TEST_F(ResizerTest, AFailedGrowDoesNotHoldUpAReclaim) {
  run_job({"n1", "n2"});
  report({"n1", "n2"});
  slurm.failures_left = 1;
  settings.retry_min_s = 5.0;
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::grow, 7, {"n3"}, {}, "allocator"}), snapshot, jobs, at(0));
  ASSERT_EQ(resizer.backoffs().size(), 1U);  // the grow is retried in 5 s
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"}, 42)), snapshot, jobs, at(0.2));
  EXPECT_TRUE(resizer.advance(jobs, at(0.2 + settings.reclaim_grace_s)));
  EXPECT_EQ(slurm.shrinks.size(), 1U);
}

TEST_F(ResizerTest, ReclaimHasTheShortGraceAndHurriesAnAllocatorDrain) {
  run_job({"n1", "n2", "n3"});
  report({"n1", "n2", "n3"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1", "n2"}, {"n3"})), snapshot, jobs, at(0));
  // A regular job now waits for n2: the drain takes n2 too, within the reclaim grace.
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"}, 42)), snapshot, jobs, at(2));
  EXPECT_EQ(resizer.draining(7), (Nodes{"n3", "n2"}));
  EXPECT_FALSE(resizer.advance(jobs, at(2.5)));
  EXPECT_TRUE(resizer.advance(jobs, at(3.0)));
  ASSERT_EQ(slurm.shrinks.size(), 1U);
  EXPECT_EQ(slurm.shrinks[0].keep_nodes, Nodes{"n1"});
  // The released nodes are promised to the regular job while it is pending: not holes to grow
  // into. Not once it runs, nor after a while.
  Job waiting;
  waiting.id = 42;
  waiting.state = JobState::pending;
  snapshot.jobs.push_back(waiting);
  snapshot.nodes = {{"n2", NodeState::idle, 0}, {"n3", NodeState::idle, 0}};
  EXPECT_EQ(resizer.promised(snapshot, at(4)), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(resizer.served(snapshot, at(4)), std::set<std::uint32_t>{42});
  EXPECT_TRUE(resizer.promised(snapshot, at(60)).empty());
  // Another job took n3: only n2 is still on its way to job 42.
  snapshot.nodes[1].state = NodeState::allocated;
  EXPECT_EQ(resizer.promised(snapshot, at(4)), std::set<std::string>{"n2"});
  snapshot.nodes[0].state = NodeState::allocated;
  EXPECT_TRUE(resizer.served(snapshot, at(4)).empty()) << "job 42 is owed nodes again";
  snapshot.nodes[0].state = NodeState::idle;
  snapshot.jobs.back().state = JobState::running;
  EXPECT_TRUE(resizer.promised(snapshot, at(4)).empty());
}

TEST_F(ResizerTest, HurryTurnsAnAllocatorDrainIntoAReclaim) {
  run_job({"n1", "n2"});
  report({"n1", "n2"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"})), snapshot, jobs, at(0));
  resizer.hurry({{"n2", 42}}, at(1));
  EXPECT_EQ(resizer.drains().at(7).waiting_job, 42U);
  EXPECT_TRUE(resizer.advance(jobs, at(2.0)));
}

TEST_F(ResizerTest, AJobWhoseLauncherNeverReportedIsShrunkWithoutWaiting) {
  run_job({"n1", "n2"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"})), snapshot, jobs, at(0));
  EXPECT_TRUE(resizer.advance(jobs, at(0)));
  EXPECT_EQ(slurm.shrinks.size(), 1U);
}

TEST_F(ResizerTest, FailedShrinkBacksOffDoublingAndIsRetried) {
  run_job({"n1", "n2"});
  report({"n1"}, {"n2"});
  slurm.failures_left = 2;
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1"}, {"n2"})), snapshot, jobs, at(0));
  EXPECT_FALSE(resizer.advance(jobs, at(0)));
  ASSERT_EQ(resizer.backoffs().size(), 1U);
  EXPECT_EQ(resizer.backoffs().at(7).failures, 1);
  EXPECT_EQ(resizer.backoffs().at(7).error, "Requested nodes are busy");
  EXPECT_DOUBLE_EQ(resizer.backoffs().at(7).retry_at, 1.0);
  EXPECT_FALSE(resizer.advance(jobs, at(0.5)));
  EXPECT_EQ(slurm.shrinks.size(), 1U) << "not retried during the backoff";
  EXPECT_FALSE(resizer.advance(jobs, at(1.0)));
  EXPECT_DOUBLE_EQ(resizer.backoffs().at(7).retry_at, 3.0);  // 1 s, then 2 s
  EXPECT_TRUE(resizer.advance(jobs, at(3.0)));
  EXPECT_EQ(slurm.shrinks.size(), 3U);
  EXPECT_TRUE(resizer.backoffs().empty());
  EXPECT_EQ(resizer.counts().failed.at("shrink"), 2U);
  EXPECT_EQ(resizer.counts().done.at("shrink"), 1U);

  const Json::Value status = actions_json(resizer, 3.0);
  EXPECT_EQ(status["done"]["shrink"].asUInt64(), 1U);
  EXPECT_EQ(status["failed"]["shrink"].asUInt64(), 2U);
}

TEST_F(ResizerTest, FailedGrowIsNotRetriedBlindlyButVisible) {
  run_job({"n1"});
  slurm.failures_left = 1;
  Resizer resizer(slurm, settings);
  const Plan grow = plan_of({ActionKind::grow, 7, {"n2"}, {}, "allocator"});
  EXPECT_FALSE(resizer.apply(grow, snapshot, jobs, at(0)));
  const Json::Value status = actions_json(resizer, 0.0);
  ASSERT_EQ(status["retrying"].size(), 1U);
  EXPECT_EQ(status["retrying"][0]["action"].asString(), "grow");
  EXPECT_EQ(status["retrying"][0]["error"].asString(), "Requested nodes are busy");
  // The journal's story, as notes the daemon logs: what was tried, and Slurm's reason.
  const Notes notes = resizer.take_notes();
  ASSERT_EQ(notes.size(), 2U);
  EXPECT_EQ(notes[0].message, "action started");
  EXPECT_EQ(notes[1].message, "action failed");
  EXPECT_EQ(notes[1].level, NoteLevel::warning);
  const auto field = [&](std::string_view key) {
    for (const NoteField& f : notes[1].fields)
      if (f.key == key) return f.value;
    return std::string("(none)");
  };
  EXPECT_EQ(field("ACTION"), "grow");
  EXPECT_EQ(field("JOB_ID"), "7");
  EXPECT_EQ(field("REASON"), "Requested nodes are busy");
  EXPECT_TRUE(resizer.take_notes().empty()) << "taken once";
  resizer.apply(grow, snapshot, jobs, at(0.5));
  EXPECT_EQ(slurm.grows.size(), 1U) << "backing off";
  EXPECT_TRUE(resizer.apply(grow, snapshot, jobs, at(1.0)));
  EXPECT_EQ(job_nodes(), (Nodes{"n1", "n2"}));
}

TEST_F(ResizerTest, ShrinkReleasesSatellitesAndShrinksTheJobOnlyForItsOwnNodes) {
  run_job({"n1", "n2"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::grow, 7, {"n3", "n4"}, {}, "allocator"}), snapshot, jobs,
                at(0));
  report({"n1", "n2", "n3", "n4"});
  resizer.apply(plan_of(shrink_to({"n1", "n2", "n4"}, {"n3"})), snapshot, jobs, at(1));
  report({"n1", "n2", "n4"}, {"n3"});
  EXPECT_TRUE(resizer.advance(jobs, at(2)));
  EXPECT_EQ(slurm.releases, std::vector<std::vector<std::uint32_t>>{{100}});
  EXPECT_TRUE(slurm.shrinks.empty()) << "the job's own nodes are all kept";
  EXPECT_EQ(jobs.jobs().at(7).satellites, (std::map<std::string, std::uint32_t>{{"n4", 101}}));

  resizer.apply(plan_of(shrink_to({"n1"}, {"n2", "n4"})), snapshot, jobs, at(3));
  report({"n1"}, {"n2", "n4"});
  EXPECT_TRUE(resizer.advance(jobs, at(4)));
  EXPECT_EQ(slurm.releases.back(), std::vector<std::uint32_t>{101});
  ASSERT_EQ(slurm.shrinks.size(), 1U);
  EXPECT_EQ(slurm.shrinks[0].keep_nodes, Nodes{"n1"});
  EXPECT_EQ(job_nodes(), Nodes{"n1"});
}

// A satellite of job 7 as gaptraind makes them: job 7's user, the elastic partition.
Job satellite_of_job_7(std::uint32_t id, const std::string& node) {
  Job satellite;
  satellite.id = id;
  satellite.name = satellite_name(7);
  satellite.user_id = 1000;
  satellite.group_id = 100;
  satellite.partition = "elastic";
  satellite.state = JobState::running;
  satellite.nodes = {node};
  return satellite;
}

TEST_F(ResizerTest, SatellitesOfAJobThatNoLongerRunsAreReleased) {
  run_job({"n1"});
  Job stranger = satellite_of_job_7(101, "n3");
  stranger.name = "gaptrain:x";
  snapshot.jobs.push_back(satellite_of_job_7(100, "n2"));
  snapshot.jobs.push_back(stranger);
  Resizer resizer(slurm, settings);
  EXPECT_FALSE(resizer.release_orphans(snapshot)) << "job 7 runs";
  snapshot.jobs[0].state = JobState::pending;  // requeued
  EXPECT_TRUE(resizer.release_orphans(snapshot));
  EXPECT_EQ(slurm.releases, std::vector<std::vector<std::uint32_t>>{{100}});
}

// Anyone may name a job "gaptrain:7": only job 7's user's job in the elastic partition is its
// satellite. Another user's, or one in another partition, is never cancelled; nor is anything
// when Slurm no longer lists job 7 (nothing shows whose its satellites were).
TEST_F(ResizerTest, JobsNamedAfterAJobButNotItsSatellitesAreNeverReleased) {
  run_job({"n1"});
  snapshot.jobs[0].state = JobState::finished;
  Job other_user = satellite_of_job_7(100, "n2");
  other_user.user_id = 1001;
  Job other_partition = satellite_of_job_7(101, "n3");
  other_partition.partition = "regular";
  snapshot.jobs.push_back(other_user);
  snapshot.jobs.push_back(other_partition);
  Resizer resizer(slurm, settings);
  EXPECT_FALSE(resizer.release_orphans(snapshot));
  snapshot.jobs.erase(snapshot.jobs.begin());  // job 7 purged from slurmctld
  snapshot.jobs.push_back(satellite_of_job_7(102, "n4"));
  EXPECT_FALSE(resizer.release_orphans(snapshot));
  EXPECT_TRUE(slurm.releases.empty());
}

TEST_F(ResizerTest, RequeueAfterTheDrainAndTheJobLeavesThePlanning) {
  run_job({"n1", "n2"});
  report({"n1", "n2"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::requeue, 7, {}, {"n1", "n2"}, "batch host wanted", 42}),
                snapshot, jobs, at(0));
  EXPECT_TRUE(resizer.planning_view(jobs).empty());
  report({}, {"n1", "n2"});
  EXPECT_TRUE(resizer.advance(jobs, at(0.5)));
  EXPECT_EQ(slurm.requeues, std::vector<std::uint32_t>{7});
  EXPECT_TRUE(slurm.shrinks.empty());
}

TEST_F(ResizerTest, PlanningViewShowsWhatADrainingJobKeeps) {
  run_job({"n1", "n2", "n3"});
  report({"n1", "n2", "n3"});
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of(shrink_to({"n1", "n2"}, {"n3"})), snapshot, jobs, at(0));
  const std::vector<ElasticJob> view = resizer.planning_view(jobs);
  ASSERT_EQ(view.size(), 1U);
  EXPECT_EQ(view[0].nodes, (Nodes{"n1", "n2"}));
  // No second action for a job while it drains.
  resizer.apply(plan_of({ActionKind::grow, 7, {"n4"}, {}, "allocator"}), snapshot, jobs, at(1));
  EXPECT_TRUE(slurm.grows.empty());
}

TEST_F(ResizerTest, LeaseIsSetRenewedAlsoWhileANodeIsReclaimedAndCappedByTheUsersLimit) {
  run_job({"n1", "n2"});  // started 60 s ago, no time limit
  Resizer resizer(slurm, settings);
  resizer.keep_leases(snapshot, jobs, {}, at(0));
  // 60 s run + 300 s lease = 6 minutes from the start.
  ASSERT_EQ(slurm.limits.size(), 1U);
  EXPECT_EQ(slurm.limits[0].second, 6U);
  snapshot.jobs[0].time_limit_minutes = 6;

  resizer.keep_leases(snapshot, jobs, {}, at(100));  // 200 s left: more than half a lease
  EXPECT_EQ(slurm.limits.size(), 1U);
  // 100 s left, n2 reclaimed: renewed all the same (260 s run + 300 s). The reclaim gives n2
  // back; a lease that ran out meanwhile would end the whole job.
  resizer.keep_leases(snapshot, jobs, {"n2"}, at(200));
  ASSERT_EQ(slurm.limits.size(), 2U);
  EXPECT_EQ(slurm.limits[1].second, 10U);
}

TEST_F(ResizerTest, ALeaseIsNotRenewedPastThePlannedTakeoverOfTheJobsNodes) {
  run_job({"n1", "n2"});  // started 60 s ago, no limit of its own
  Resizer resizer(slurm, settings);
  resizer.keep_leases(snapshot, jobs, {}, at(0));  // the first lease: 6 minutes
  slurm.limits.clear();
  snapshot.jobs[0].time_limit_minutes = 6;
  // Backfill plans a regular job on n2 at 300 s from now (6 minutes from the job's start):
  // the lease already ends then, so it is not renewed.
  resizer.keep_leases(snapshot, jobs, {}, at(200), {{"n2", kWall + 300}});
  EXPECT_TRUE(slurm.limits.empty());
  // Planned at 480 s: renewed up to 9 minutes from the start (ends at 480 s), not 10.
  resizer.keep_leases(snapshot, jobs, {}, at(200), {{"n2", kWall + 480}});
  ASSERT_EQ(slurm.limits.size(), 1U);
  EXPECT_EQ(slurm.limits[0].second, 9U);
}

TEST_F(ResizerTest, LeaseNeverExceedsTheLimitTheJobWasSubmittedWith) {
  run_job({"n1"}, 3);
  Resizer resizer(slurm, settings);
  resizer.keep_leases(snapshot, jobs, {}, at(0));
  resizer.keep_leases(snapshot, jobs, {}, at(100));
  EXPECT_TRUE(slurm.limits.empty());
}

TEST_F(ResizerTest, AdmitsAHeldJobWithItsFirstLease) {
  Resizer resizer(slurm, settings);
  EXPECT_TRUE(resizer.apply(plan_of({ActionKind::admit, 9, {"n1", "n2"}, {}, "allocator"}),
                            snapshot, jobs, at(0)));
  ASSERT_EQ(slurm.admits.size(), 1U);
  EXPECT_EQ(slurm.admits[0].nodes, (Nodes{"n1", "n2"}));
  EXPECT_EQ(slurm.admits[0].time_limit_minutes, 5U);
  // Not admitted again while Slurm starts it.
  resizer.apply(plan_of({ActionKind::admit, 9, {"n3"}, {}, "allocator"}), snapshot, jobs, at(1));
  EXPECT_EQ(slurm.admits.size(), 1U);
}

TEST_F(ResizerTest, AnAdmittedJobsLeaseIsRenewedUpToTheLimitItWasSubmittedWith) {
  // Job 7 was submitted held with -t 60; admission gives it a 5-minute first lease. Renewals
  // are capped by the 60 minutes, not by that first lease.
  run_job({"n1"});
  Job& job = snapshot.jobs.front();
  job.state = JobState::pending;
  job.time_limit_minutes = 60;
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::admit, 7, {"n1"}, {}, "allocator"}), snapshot, jobs, at(0));
  ASSERT_EQ(slurm.admits.size(), 1U);
  job.state = JobState::running;
  job.start_time = kWall;
  job.time_limit_minutes = slurm.admits[0].time_limit_minutes;  // 5
  resizer.keep_leases(snapshot, jobs, {}, at(200));             // 100 s left: renewed
  ASSERT_EQ(slurm.limits.size(), 1U);
  EXPECT_EQ(slurm.limits[0].second, 9U);  // 200 s run + 300 s lease, in whole minutes
}

// Held job `id` as released by an admission, not yet started by Slurm.
void add_released_job(Snapshot& snapshot, std::uint32_t id) {
  Job pending;
  pending.id = id;
  pending.state = JobState::pending;
  pending.partition = "elastic";
  snapshot.jobs.push_back(pending);
}

// The nodes of an admission Slurm has not started yet are no hole to grow another job into
// (the grow would be refused, "Requested nodes are busy", or take the node from the admitted
// job); once the job runs they are its own, and once it is held again they are free.
TEST_F(ResizerTest, AnAdmissionsNodesArePromisedUntilSlurmStartsIt) {
  add_released_job(snapshot, 9);
  Resizer resizer(slurm, settings);
  EXPECT_TRUE(resizer.promised(snapshot, at(0)).empty());
  resizer.apply(plan_of({ActionKind::admit, 9, {"n3"}, {}, "allocator"}), snapshot, jobs, at(0));
  EXPECT_EQ(resizer.promised(snapshot, at(1)), (std::set<std::string>{"n3"}));
  EXPECT_TRUE(resizer.promised(snapshot, at(settings.admit_start_s)).empty());  // overdue
  snapshot.jobs.back().held = true;
  EXPECT_TRUE(resizer.promised(snapshot, at(1)).empty());
  snapshot.jobs.back().held = false;
  snapshot.jobs.back().state = JobState::running;
  EXPECT_TRUE(resizer.promised(snapshot, at(1)).empty());
}

// A held job's admission releases it (AdmitRequest::held); a parked job's only sets its begin
// time to now: it is not held, and a release would make Slurm recompute a priority it has.
TEST_F(ResizerTest, AParkedJobIsAdmittedByItsBeginTimeAHeldOneReleased) {
  add_released_job(snapshot, 9);
  snapshot.jobs.back().held = true;
  add_released_job(snapshot, 10);
  snapshot.jobs.back().eligible_time = snapshot.taken_at + kParkForS;
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::admit, 9, {"n1"}, {}, "allocator"}), snapshot, jobs, at(0));
  resizer.apply(plan_of({ActionKind::admit, 10, {"n2"}, {}, "allocator"}), snapshot, jobs, at(0));
  ASSERT_EQ(slurm.admits.size(), 2U);
  EXPECT_EQ(slurm.admits[0].job_id, 9U);
  EXPECT_TRUE(slurm.admits[0].held);
  EXPECT_EQ(slurm.admits[1].job_id, 10U);
  EXPECT_FALSE(slurm.admits[1].held);
}

TEST_F(ResizerTest, AnAdmittedJobSlurmDoesNotStartIsParkedAgain) {
  add_released_job(snapshot, 9);
  Resizer resizer(slurm, settings);
  resizer.apply(plan_of({ActionKind::admit, 9, {"n1"}, {}, "allocator"}), snapshot, jobs, at(0));
  EXPECT_FALSE(resizer.hold_unstarted_admissions(snapshot, at(settings.admit_start_s - 1)));
  EXPECT_TRUE(slurm.parks.empty());
  EXPECT_TRUE(resizer.hold_unstarted_admissions(snapshot, at(settings.admit_start_s)));
  EXPECT_EQ(slurm.parks, (std::vector<std::uint32_t>{9}));
  EXPECT_FALSE(resizer.hold_unstarted_admissions(snapshot, at(settings.admit_start_s + 5)));

  // One that Slurm started is left alone.
  resizer.apply(plan_of({ActionKind::admit, 9, {"n1"}, {}, "allocator"}), snapshot, jobs, at(100));
  snapshot.jobs.back().state = JobState::running;
  EXPECT_FALSE(resizer.hold_unstarted_admissions(snapshot, at(200)));
  EXPECT_EQ(slurm.parks.size(), 1U);
}

}  // namespace
}  // namespace gaptrain::core::resizer_test
