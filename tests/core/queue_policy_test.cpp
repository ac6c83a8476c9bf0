#include "core/queue_policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/config.hpp"
#include "core/cycle.hpp"
#include "core/parking.hpp"
#include "core/planner.hpp"
#include "gaptrain/input_error.hpp"
#include "planner_world.hpp"

namespace gaptrain::core::queue_policy_test {
namespace {

using namespace planner_world;

// The uid Slurm gives each user of these tests.
std::uint32_t uid_of(const std::string& user) {
  return user == "alice" ? 1001 : 1002;
}

// A held job of the elastic partition (sbatch --hold -p elastic -N MIN-MAX).
Job& add_held(Snapshot& s, std::uint32_t id, std::uint32_t min, std::uint32_t max) {
  Job job;
  job.id = id;
  job.state = JobState::pending;
  job.partition = "elastic";
  job.held = true;
  job.min_nodes = min;
  job.max_nodes = max;
  job.user = "alice";
  job.user_id = uid_of(job.user);
  job.account = "physics";
  job.submit_time = kNow - 100;
  job.eligible_time = kNow - 100;
  s.jobs.push_back(job);
  return s.jobs.back();
}

// A parked job of the elastic partition (sbatch --begin=now+365days -p elastic -N MIN-MAX, what
// `gaptrain submit` writes): not held, its begin time a year ahead, the priority Slurm gave it.
Job& add_parked(Snapshot& s, std::uint32_t id, std::uint32_t min, std::uint32_t max,
                std::uint32_t priority) {
  Job& job = add_held(s, id, min, max);
  job.held = false;
  job.eligible_time = kNow + kParkForS;
  job.priority = priority;
  return job;
}

// A running elastic job of `user` (account physics) on `nodes`, linear scaling up to `max`.
ElasticJob add_running(Snapshot& s, std::uint32_t id, const Nodes& nodes, int max,
                       const std::string& user) {
  ElasticJob e = elastic_job(s, id, nodes, 1, max);
  e.given.user = user;
  s.jobs.back().user = user;
  s.jobs.back().user_id = uid_of(user);
  s.jobs.back().account = "physics";
  return e;
}

std::vector<std::uint32_t> admitted(const Plan& p) {
  std::vector<std::uint32_t> ids;
  for (const Action& a : p.actions)
    if (a.kind == ActionKind::admit) ids.push_back(a.job_id);
  return ids;
}

std::string reason_of(const Plan& p, std::uint32_t job_id) {
  for (const auto& [id, why] : p.waiting)
    if (id == job_id) return why;
  return "";
}

std::size_t nodes_added(const Plan& p, std::uint32_t job_id) {
  std::size_t count = 0;
  for (const Action& a : p.actions)
    if (a.job_id == job_id && (a.kind == ActionKind::grow || a.kind == ActionKind::admit))
      count += a.nodes.size();
  return count;
}

// Two held jobs of 3 nodes on 4 free nodes: only one fits, and it is the one Slurm ranks first,
// whichever was submitted first; the other waits behind it.
TEST(QueuePolicy, TheHigherPriorityJobIsAdmittedWhenOnlyOneFits) {
  for (const std::uint32_t first : {7U, 8U}) {
    Snapshot s = cluster(4, {});
    add_held(s, 7, 3, 3).priority = first == 7 ? 200 : 100;
    Job& later = add_held(s, 8, 3, 3);
    later.priority = first == 8 ? 200 : 100;
    later.submit_time = kNow - 10;
    const Plan p = plan(s, find_holes(s), {}, kNow, {});
    const std::uint32_t second = first == 7 ? 8 : 7;
    EXPECT_EQ(admitted(p), std::vector<std::uint32_t>{first});
    EXPECT_NE(reason_of(p, second).find("waits for 3 nodes"), std::string::npos)
        << reason_of(p, second);
  }
}

// Equal priorities (every --hold job has 0 in Slurm): first come, first served, whatever the
// job ids.
TEST(QueuePolicy, AmongEqualPrioritiesTheEarlierSubmissionIsAdmitted) {
  for (const std::uint32_t first : {7U, 8U}) {
    Snapshot s = cluster(4, {});
    add_held(s, 7, 3, 3).submit_time = first == 7 ? kNow - 50 : kNow - 10;
    add_held(s, 8, 3, 3).submit_time = first == 8 ? kNow - 50 : kNow - 10;
    EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, {})), std::vector<std::uint32_t>{first});
  }
}

// Parked jobs go by Slurm's priority, not by their submission: the older job of
// lower priority (e.g. --nice) waits for the newer one of higher priority when only one fits.
TEST(QueuePolicy, ParkedJobsAreAdmittedBySlurmsPriorityBeforeTheirSubmission) {
  Snapshot s = cluster(4, {});
  add_parked(s, 7, 3, 3, 4294901258U).submit_time = kNow - 50;  // older, --nice=500
  add_parked(s, 8, 3, 3, 4294901758U).submit_time = kNow - 10;
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  EXPECT_EQ(admitted(p), std::vector<std::uint32_t>{8});
  EXPECT_NE(reason_of(p, 7).find("waits for 3 nodes"), std::string::npos) << reason_of(p, 7);
}

// A held job's priority is 0 in Slurm (the hold): held jobs come after every parked one, whatever
// their submission, and among themselves first come, first served.
TEST(QueuePolicy, HeldJobsComeAfterParkedOnes) {
  Snapshot s = cluster(4, {});
  add_held(s, 6, 3, 3).submit_time = kNow - 90;
  add_parked(s, 7, 3, 3, 1).submit_time = kNow - 10;
  EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, {})), std::vector<std::uint32_t>{7});
  s.jobs.pop_back();
  add_held(s, 7, 3, 3).submit_time = kNow - 10;
  EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, {})), std::vector<std::uint32_t>{6});
}

// Which pending jobs wait for gaptraind: held ones, and parked ones (a begin time at least
// kParkedAheadS ahead). A job with a begin time of the user's own, nearer, is neither: Slurm
// starts it at that time, and gaptraind does not admit it before.
TEST(QueuePolicy, ParkedMeansABeginTimeFarAheadOfANotHeldPendingJob) {
  Job job;
  job.state = JobState::pending;
  job.eligible_time = kNow + kParkedAheadS;
  EXPECT_TRUE(is_parked(job, kNow));
  EXPECT_TRUE(waits_for_admission(job, kNow));
  job.eligible_time = kNow + kParkedAheadS - 1;
  EXPECT_FALSE(is_parked(job, kNow));
  EXPECT_FALSE(waits_for_admission(job, kNow));
  job.eligible_time = kNow + kParkForS;
  job.held = true;  // held and parked: held (priority 0), waits all the same
  EXPECT_FALSE(is_parked(job, kNow));
  EXPECT_TRUE(waits_for_admission(job, kNow));
  job.held = false;
  job.state = JobState::running;
  EXPECT_FALSE(is_parked(job, kNow));
  EXPECT_FALSE(waits_for_admission(job, kNow));

  Snapshot s = cluster(4, {});
  add_parked(s, 7, 1, 1, 100);
  add_parked(s, 8, 1, 1, 100).eligible_time = kNow + 24 * 3600;  // the user's own, tomorrow
  add_held(s, 9, 1, 1).eligible_time = kNow + 24 * 3600;         // held with its own: waits for it
  add_parked(s, 10, 1, 1, 100).partition = "regular";            // parked elsewhere: not ours
  std::vector<std::uint32_t> ids;
  for (const ElasticJob& candidate : admission_candidates(s, "elastic"))
    ids.push_back(candidate.job_id);
  EXPECT_EQ(ids, std::vector<std::uint32_t>{7});
  EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, {})), std::vector<std::uint32_t>{7});
}

// A parked job that carries gaptraind's mark (requeued and parked again, or an admission Slurm
// did not start) waits for admission: it is not an admitted job about to start, so it does not
// count against its own user's cap.
TEST(QueuePolicy, AParkedJobWithAMarkIsACandidateNotAnAdmission) {
  Snapshot s = cluster(4, {});
  add_parked(s, 7, 1, 2, 100).admin_comment = "gaptrain:limit=60,nodes=1-2";
  PlannerSettings settings;
  settings.queue.max_running_per_user = 1;
  const Plan p = plan(s, find_holes(s), {}, kNow, settings);
  EXPECT_EQ(admitted(p), std::vector<std::uint32_t>{7}) << reason_of(p, 7);
}

// A big job at the head that cannot start now does not hold back a small one behind it that
// fits (backfill): the small one is admitted past it, marked as having overtaken it.
TEST(QueuePolicy, AJobBehindOneThatDoesNotFitGoesPastIt) {
  Snapshot s = cluster(4, {});
  add_held(s, 7, 5, 5).priority = 200;
  add_held(s, 8, 1, 1).priority = 100;
  const Plan p = plan(s, find_holes(s), {}, kNow, {});
  EXPECT_EQ(admitted(p), std::vector<std::uint32_t>{8});
  for (const Action& a : p.actions) {
    if (a.kind == ActionKind::admit) {
      EXPECT_EQ(a.overtakes, 7U);
    }
  }
  EXPECT_NE(reason_of(p, 7).find("waits for 5 nodes"), std::string::npos) << reason_of(p, 7);
}

// Once the head could start in place of the running jobs that overtook it, they are requeued
// (the most recent first, as few as needed) and nobody else goes past it meanwhile; a job
// admitted in its turn stays.
TEST(QueuePolicy, JobsThatWentPastTheHeadGiveWayWhenItCouldStartInTheirPlace) {
  Snapshot s = cluster(5, {"n1", "n2", "n3"});
  ElasticJob in_turn = add_running(s, 5, {"n1"}, 2, "alice");
  ElasticJob older = add_running(s, 8, {"n2"}, 2, "bob");
  ElasticJob newer = add_running(s, 9, {"n3"}, 2, "bob");
  PlannerSettings settings;
  settings.backfilled.overtook = {{8, 7}, {9, 7}};
  add_held(s, 7, 3, 3).priority = 200;  // 2 nodes free: it fits once one of them is gone
  add_held(s, 11, 1, 1).priority = 100;
  const Plan p = plan(s, find_holes(s), {in_turn, older, newer}, kNow, settings);
  std::vector<std::uint32_t> requeued;
  for (const Action& a : p.actions)
    if (a.kind == ActionKind::requeue) requeued.push_back(a.job_id);
  EXPECT_EQ(requeued, std::vector<std::uint32_t>{9});
  EXPECT_TRUE(admitted(p).empty());
  EXPECT_NE(reason_of(p, 11).find("job 7 is ahead"), std::string::npos) << reason_of(p, 11);

  // While that requeue is under way (9 no longer planned, its node not free yet), nobody else
  // goes past the head either, though no running job is left to give way.
  settings.backfilled.overtook = {{9, 7}};
  settings.backfilled.requeuing = {9};
  const Plan requeuing = plan(s, find_holes(s), {in_turn, older}, kNow, settings);
  EXPECT_TRUE(admitted(requeuing).empty());
  EXPECT_NE(reason_of(requeuing, 11).find("job 7 is ahead"), std::string::npos)
      << reason_of(requeuing, 11);

  // Jobs admitted in their turn only: the head waits, the job behind it goes past.
  const Plan unchanged = plan(s, find_holes(s), {in_turn, older, newer}, kNow, {});
  for (const Action& a : unchanged.actions) EXPECT_NE(a.kind, ActionKind::requeue);
  EXPECT_EQ(admitted(unchanged), std::vector<std::uint32_t>{11});
}

TEST(QueuePolicy, AJobWhoseDependencyIsUnmetIsNotAdmitted) {
  Snapshot s = cluster(4, {});
  add_held(s, 7, 1, 4).dependency = "afterok:5(unfulfilled)";
  Job first;  // the job it depends on, still running
  first.id = 5;
  first.state = JobState::running;
  s.jobs.push_back(first);
  Plan p = plan(s, find_holes(s), {}, kNow, {});
  EXPECT_TRUE(admitted(p).empty());
  EXPECT_NE(reason_of(p, 7).find("dependency not met (afterok:5(unfulfilled))"), std::string::npos);
  // Slurm does not evaluate a held job's dependency: it still lists it unfulfilled once job 5
  // completed. gaptraind judges it from job 5's state.
  s.jobs.back().state = JobState::finished;  // failed: afterok stays unmet
  EXPECT_TRUE(admitted(plan(s, find_holes(s), {}, kNow, {})).empty());
  s.jobs.back().completed_ok = true;
  EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, {})), std::vector<std::uint32_t>{7});
}

TEST(QueuePolicy, DependencyKindsAndJoins) {
  Snapshot s;
  const auto job_in = [&](std::uint32_t id, JobState state, bool ok) {
    Job job;
    job.id = id;
    job.state = state;
    job.completed_ok = ok;
    s.jobs.push_back(job);
  };
  job_in(1, JobState::running, false);
  job_in(2, JobState::finished, true);
  job_in(3, JobState::finished, false);
  const JobIndex jobs(s);
  const auto unmet = [&](const std::string& dependency) {
    Job job;
    job.dependency = dependency;
    return dependency_unmet(job, jobs);
  };
  EXPECT_FALSE(unmet(""));
  EXPECT_FALSE(unmet("after:1(unfulfilled)"));
  EXPECT_TRUE(unmet("afterany:1(unfulfilled)"));
  EXPECT_FALSE(unmet("afterany:3(unfulfilled)"));
  EXPECT_FALSE(unmet("afterok:2(unfulfilled)"));
  EXPECT_TRUE(unmet("afterok:3(unfulfilled)"));
  EXPECT_FALSE(unmet("afternotok:3(unfulfilled)"));
  EXPECT_FALSE(unmet("afterok:99(unfulfilled)"));  // gone from Slurm: met, as Slurm counts it
  EXPECT_TRUE(unmet("afterok:2(failed)"));
  EXPECT_TRUE(unmet("singleton(unfulfilled)"));
  EXPECT_TRUE(unmet("afterok:2(unfulfilled),afterok:3(unfulfilled)"));
  EXPECT_FALSE(unmet("afterok:2(unfulfilled)?afterok:3(unfulfilled)"));
}

TEST(QueuePolicy, PerUserAndPerAccountCapsOfRunningJobsHoldTheNextJob) {
  Snapshot s = cluster(4, {"n1"});
  const ElasticJob running = add_running(s, 5, {"n1"}, 2, "alice");
  add_held(s, 7, 1, 1);
  PlannerSettings settings;
  settings.queue.max_running_per_user = 1;
  Plan p = plan(s, find_holes(s), {running}, kNow, settings);
  EXPECT_TRUE(admitted(p).empty());
  EXPECT_NE(reason_of(p, 7).find("max_running_per_user"), std::string::npos);
  s.jobs.back().user = "bob";  // another user's job is not held by alice's cap
  s.jobs.back().user_id = uid_of("bob");
  p = plan(s, find_holes(s), {running}, kNow, settings);
  EXPECT_EQ(admitted(p), std::vector<std::uint32_t>{7});
  settings.queue.max_running_per_account = 1;  // but by their account's (both in physics)
  p = plan(s, find_holes(s), {running}, kNow, settings);
  EXPECT_TRUE(admitted(p).empty());
  EXPECT_NE(reason_of(p, 7).find("max_running_per_account"), std::string::npos);
}

// A job admitted at the last poll is not managed until its launcher registers (a second or so):
// released, its mark written, then RUNNING. Meanwhile it counts against its user's caps, or the
// user's next held job was admitted at once (found by elastic.queue_order_and_cap).
TEST(QueuePolicy, AJobAdmittedButNotRegisteredYetCountsAgainstTheCaps) {
  for (const JobState state : {JobState::pending, JobState::running}) {
    Snapshot s = cluster(4, {});
    Job& first = add_held(s, 6, 1, 2);
    first.held = false;
    // Slurm names the user of some jobs and not of others: the cap counts uids.
    first.user = "";
    first.state = state;
    first.admin_comment = "gaptrain:limit=60,nodes=1-2";
    if (state == JobState::running) first.nodes = {"n1", "n2"};
    first.min_nodes = first.max_nodes = 2;  // what the admission set
    add_held(s, 7, 1, 1);
    // A satellite of job 6 named like one, in its partition: no job of its own.
    Job satellite;
    satellite.id = 9;
    satellite.name = "gaptrain:6";
    satellite.partition = "elastic";
    satellite.state = JobState::running;
    satellite.user = "alice";
    satellite.user_id = uid_of("alice");
    s.jobs.push_back(satellite);
    PlannerSettings settings;
    settings.queue.max_running_per_user = 1;
    Plan p = plan(s, find_holes(s), {}, kNow, settings);
    EXPECT_TRUE(admitted(p).empty()) << to_string(state);
    EXPECT_NE(reason_of(p, 7).find("max_running_per_user"), std::string::npos) << reason_of(p, 7);
    settings.queue.max_running_per_user = 2;  // the satellite is not a second running job
    EXPECT_EQ(admitted(plan(s, find_holes(s), {}, kNow, settings)), std::vector<std::uint32_t>{7});
    settings.queue.max_running_per_user = 0;
    settings.queue.max_nodes_per_user = 2;  // job 6's two nodes leave none
    p = plan(s, find_holes(s), {}, kNow, settings);
    EXPECT_TRUE(admitted(p).empty()) << to_string(state);
    EXPECT_NE(reason_of(p, 7).find("max_nodes_per_user"), std::string::npos) << reason_of(p, 7);
  }
}

// A job that would grow into all 6 holes gets what its user's node cap leaves.
TEST(QueuePolicy, APerUserNodeCapLimitsGrows) {
  Snapshot s = cluster(8, {"n1", "n2"});
  const ElasticJob running = add_running(s, 5, {"n1", "n2"}, 8, "alice");
  PlannerSettings settings;
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 6U);
  settings.queue.max_nodes_per_user = 5;
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 3U);
  settings.queue.max_nodes_per_user = 0;
  settings.queue.max_nodes_per_account = 4;
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 2U);
}

// A job that runs only at even counts (--elastic=2-8:2) capped at 5 nodes grows to 4, not 5.
TEST(QueuePolicy, ACapStopsAJobAtAnAllowedCount) {
  Snapshot s = cluster(8, {"n1", "n2"});
  ElasticJob running = add_running(s, 5, {"n1", "n2"}, 8, "alice");
  running.given.min_nodes = 2;
  running.given.allowed_sizes = {2, 4, 6, 8};
  PlannerSettings settings;
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 6U);
  settings.queue.max_nodes_per_user = 5;
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 2U);
  settings.queue.max_nodes_per_user = 3;  // 3 leaves no even count above the 2 it holds
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 0U);
}

TEST(QueuePolicy, TheElasticShareOfThePartitionIsCapped) {
  Snapshot s = cluster(8, {"n1"});
  const ElasticJob running = add_running(s, 5, {"n1"}, 8, "alice");
  PlannerSettings settings;
  settings.queue.max_elastic_percent = 50;  // 4 of the 8 nodes
  EXPECT_EQ(nodes_added(plan(s, find_holes(s), {running}, kNow, settings), 5), 3U);
}

// An admission that a node cap would cut below the job's minimum waits, with why.
TEST(QueuePolicy, ANodeCapBelowAJobsMinimumHoldsIt) {
  Snapshot s = cluster(4, {});
  add_held(s, 7, 3, 3);
  PlannerSettings settings;
  settings.queue.max_nodes_per_user = 2;
  const Plan p = plan(s, find_holes(s), {}, kNow, settings);
  EXPECT_TRUE(admitted(p).empty());
  EXPECT_NE(reason_of(p, 7).find("max_nodes_per_user"), std::string::npos);
}

TEST(QueuePolicy, AccountWeightsAreTheFairObjectivesWeights) {
  QueuePolicy policy;
  policy.account_weights = {{"physics", 2.5}};
  EXPECT_EQ(policy.weight_of("physics"), 2.5);
  EXPECT_EQ(policy.weight_of("chemistry"), 1.0);
}

TEST(QueuePolicyConfig, TheObjectiveCapsAndWeightsAreRead) {
  const DaemonConfig config = parse_config(
      R"({"objective": "fair", "account_weights": {"physics": 2}, "max_running_per_user": 2,
          "max_nodes_per_user": 8, "max_running_per_account": 4, "max_nodes_per_account": 16,
          "max_elastic_percent": 75})");
  EXPECT_EQ(config.objective, allocator::Objective::fair);
  EXPECT_EQ(config.queue.weight_of("physics"), 2.0);
  EXPECT_EQ(config.queue.max_running_per_user, 2);
  EXPECT_EQ(config.queue.max_nodes_per_user, 8);
  EXPECT_EQ(config.queue.max_running_per_account, 4);
  EXPECT_EQ(config.queue.max_nodes_per_account, 16);
  EXPECT_EQ(config.queue.max_elastic_percent, 75);
}

// Bad values are refused, naming the key.
TEST(QueuePolicyConfig, BadValuesAreRefusedNamingTheKey) {
  const auto refused_key = [](const std::string& json) -> std::string {
    try {
      parse_config(json);
    } catch (const InputError& error) {
      return error.field();
    }
    return "(accepted)";
  };
  EXPECT_EQ(refused_key(R"({"objective": "fastest"})"), "objective");
  EXPECT_EQ(refused_key(R"({"objective": 1})"), "objective");
  EXPECT_EQ(refused_key(R"({"account_weights": [1]})"), "account_weights");
  EXPECT_EQ(refused_key(R"({"account_weights": {"physics": 0}})"), "account_weights");
  EXPECT_EQ(refused_key(R"({"account_weights": {"physics": "2"}})"), "account_weights");
  EXPECT_EQ(refused_key(R"({"max_running_per_user": -1})"), "max_running_per_user");
  EXPECT_EQ(refused_key(R"({"max_nodes_per_account": 1.5})"), "max_nodes_per_account");
  EXPECT_EQ(refused_key(R"({"max_elastic_percent": 0})"), "max_elastic_percent");
  EXPECT_EQ(refused_key(R"({"max_elastic_percent": 101})"), "max_elastic_percent");
}

TEST(QueuePolicyConfig, TheCycleTakesTheObjectiveAndThePolicy) {
  const DaemonConfig config =
      parse_config(R"({"objective": "throughput", "max_nodes_per_user": 3})");
  const CycleSettings settings = cycle_settings(config);
  EXPECT_EQ(settings.planner.objective, allocator::Objective::throughput);
  EXPECT_EQ(settings.planner.queue.max_nodes_per_user, 3);
}

// Paused: held jobs wait (saying why), running jobs do not grow, reclaims are still served.
TEST(Operation, PausedAdmitsAndGrowsNothingButServesReclaims) {
  Snapshot s = cluster(4, {"n1", "n2"});
  const ElasticJob running = add_running(s, 5, {"n1", "n2"}, 4, "alice");
  add_held(s, 7, 1, 1);
  PlannerSettings settings;
  ASSERT_FALSE(plan(s, find_holes(s), {running}, kNow, settings).actions.empty());
  settings.operation = Operation::paused;
  Plan p = plan(s, find_holes(s), {running}, kNow, settings);
  EXPECT_TRUE(p.actions.empty());
  EXPECT_NE(reason_of(p, 7).find("gaptraind is paused"), std::string::npos) << reason_of(p, 7);

  Job regular;  // a regular job that needs n2 now
  regular.id = 42;
  regular.state = JobState::pending;
  regular.partition = "regular";
  regular.reason = PendingReason::resources;
  regular.min_nodes = 4;
  s.jobs.push_back(regular);
  p = plan(s, find_holes(s), {running}, kNow, settings);
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions.front().waiting_job, 42U);
}

// Draining: every satellite is given back, each job keeps its own nodes.
TEST(Operation, DrainingGivesBackEverySatellite) {
  Snapshot s = cluster(4, {"n1", "n2", "n3"});
  ElasticJob running = add_running(s, 5, {"n1", "n2", "n3"}, 4, "alice");
  running.satellites = {{"n2", 90}, {"n3", 91}};
  PlannerSettings settings;
  settings.operation = Operation::draining;
  const Plan p = plan(s, find_holes(s), {running}, kNow, settings);
  ASSERT_EQ(p.actions.size(), 1U);
  EXPECT_EQ(p.actions.front().kind, ActionKind::shrink);
  EXPECT_EQ(p.actions.front().nodes, Nodes{"n1"});
  EXPECT_EQ(p.actions.front().drain, (Nodes{"n2", "n3"}));
}

TEST(Operation, NamesRoundTrip) {
  for (const Operation operation : {Operation::running, Operation::paused, Operation::draining})
    EXPECT_EQ(parse_operation(to_string(operation)), operation);
  EXPECT_EQ(parse_operation("stopped"), std::nullopt);
}

}  // namespace
}  // namespace gaptrain::core::queue_policy_test
