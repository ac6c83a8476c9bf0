// Registering a job again is harmless (docs/protocol.md): the launcher re-sends its job's
// registration whenever gaptraind refused its report (gaptraind restarted without its state
// file), and a restarted batch step registers again. Neither may take the job's satellites from
// it (its launcher would stop their steps) nor forget what was learned of it.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/elastic_jobs.hpp"
#include "core/launch_instruction.hpp"

namespace gaptrain::core::reregistration_test {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
constexpr double kMono = 5'000.0;

Job running_job(std::uint32_t id, std::vector<std::string> nodes) {
  Job job;
  job.id = id;
  job.user_id = 1001;
  job.user = "alice";
  job.partition = "elastic";
  job.state = JobState::running;
  job.nodes = std::move(nodes);
  job.batch_host = job.nodes.front();
  return job;
}

Job satellite_of(std::uint32_t owner, std::uint32_t id, const std::string& node) {
  Job satellite = running_job(id, {node});
  satellite.name = satellite_name(owner);
  return satellite;
}

protocol::JobRegistration registration() {
  protocol::JobRegistration r;
  r.job_id = 5;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 4;
  return r;
}

protocol::LauncherReport progress(std::vector<std::string> nodes, double samples) {
  protocol::LauncherReport r;
  r.job_id = 5;
  r.running = std::move(nodes);
  r.samples_done = samples;
  return r;
}

// Job 5 on n1 grown onto n2 (satellite 9) and n3 (satellite 10), as a poll shows it.
Snapshot grown_job() {
  Snapshot s;
  s.jobs.push_back(running_job(5, {"n1"}));
  s.jobs.push_back(satellite_of(5, 9, "n2"));
  s.jobs.push_back(satellite_of(5, 10, "n3"));
  return s;
}

const std::vector<std::string> kGrown{"n1", "n2", "n3"};
const std::map<std::string, std::uint32_t> kSatellites{{"n2", 9}, {"n3", 10}};

TEST(Reregistration, TheSameRegistrationAgainKeepsTheSatellitesAndTheLearnedCurve) {
  ElasticJobs jobs;
  const Snapshot s = grown_job();
  ASSERT_FALSE(jobs.add(registration(), &s.jobs.front(), "elastic", kNow));
  jobs.refresh(s, kMono);
  ASSERT_EQ(jobs.jobs().at(5).nodes, kGrown);
  // Steady on 3 nodes: 150 samples/s over 20 s, learned.
  ASSERT_TRUE(jobs.report(progress(kGrown, 1000), kNow + 10, kMono + 10));
  ASSERT_TRUE(jobs.report(progress(kGrown, 4000), kNow + 30, kMono + 30));
  ASSERT_EQ(jobs.jobs().at(5).curve_source, Source::learned);
  const double learned_rate = jobs.jobs().at(5).curve.at(3);

  // The launcher's own registration, unchanged, sent again.
  ASSERT_FALSE(jobs.add(registration(), &s.jobs.front(), "elastic", kNow + 40));
  const ElasticJob& again = jobs.jobs().at(5);
  EXPECT_EQ(again.nodes, kGrown);
  EXPECT_EQ(again.satellites, kSatellites);
  EXPECT_EQ(again.curve_source, Source::learned);
  EXPECT_DOUBLE_EQ(again.curve.at(3), learned_rate);
  EXPECT_EQ(again.registered_at, kNow);
  EXPECT_EQ(again.samples_done, 4000.0);
  // What its launcher is told next: every node still its own, none to let go.
  const protocol::LaunchInstruction told = launch_instruction(again, {}, {});
  EXPECT_EQ(told.nodes, kGrown);
  EXPECT_TRUE(told.drain.empty());
  EXPECT_EQ(told.allocations, kSatellites);
  // And learning goes on where it was: the learner was not started over.
  ASSERT_TRUE(jobs.report(progress(kGrown, 7000), kNow + 50, kMono + 50));
  EXPECT_EQ(jobs.jobs().at(5).curve_source, Source::learned);
}

TEST(Reregistration, ANewTermReplacesItsOldValueAndKeepsTheNodes) {
  ElasticJobs jobs;
  const Snapshot s = grown_job();
  ASSERT_FALSE(jobs.add(registration(), &s.jobs.front(), "elastic", kNow));
  jobs.refresh(s, kMono);
  ASSERT_TRUE(jobs.report(progress(kGrown, 1000), kNow + 10, kMono + 10));
  ASSERT_TRUE(jobs.report(progress(kGrown, 4000), kNow + 30, kMono + 30));
  protocol::JobRegistration narrower = registration();
  narrower.max_nodes = 3;
  narrower.curve = ScalingCurve({{1, 100.0}, {3, 250.0}});
  narrower.notice_s = 30.0;
  ASSERT_FALSE(jobs.add(narrower, &s.jobs.front(), "elastic", kNow + 40));
  const ElasticJob& again = jobs.jobs().at(5);
  EXPECT_EQ(again.nodes, kGrown);
  EXPECT_EQ(again.given.max_nodes, 3);
  EXPECT_EQ(again.curve_source, Source::given);
  EXPECT_DOUBLE_EQ(again.curve.at(3), 250.0);
  EXPECT_EQ(again.given.notice_s, 30.0);
}

// gaptraind restarted without its state file: the job is new to it, and its satellites are
// its nodes from its first registration on, not from the next poll.
TEST(Reregistration, AJobNewToGaptraindGetsTheSatellitesItHolds) {
  ElasticJobs jobs;
  const Snapshot s = grown_job();
  ASSERT_FALSE(jobs.add(registration(), s, "elastic", kNow));
  const ElasticJob& job = jobs.jobs().at(5);
  EXPECT_EQ(job.nodes, kGrown);
  EXPECT_EQ(job.satellites, kSatellites);
  EXPECT_EQ(launch_instruction(job, {}, {}).nodes, kGrown);
}

// A resize gaptraind made ahead of the next poll (a satellite released) is not undone by a
// registration arriving before that poll, though the snapshot still lists the satellite.
TEST(Reregistration, AResizeAheadOfThePollIsNotUndone) {
  ElasticJobs jobs;
  const Snapshot s = grown_job();
  ASSERT_FALSE(jobs.add(registration(), s, "elastic", kNow));
  jobs.resized(5, {"n1", "n2"}, {{"n2", 9}}, kMono);
  ASSERT_FALSE(jobs.add(registration(), s, "elastic", kNow + 1));
  EXPECT_EQ(jobs.jobs().at(5).nodes, (std::vector<std::string>{"n1", "n2"}));
}

}  // namespace
}  // namespace gaptrain::core::reregistration_test
