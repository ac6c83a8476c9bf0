// gaptraind and `gaptrain simulate` decide alike: the real Daemon (its loop, its Slurm
// worker deciding on copies, munge-sealed registrations) runs against the simulator's Slurm
// (simulator/replayed_slurm.hpp) while this test plays the regular workload and the elastic
// jobs' users on it. Every snapshot the daemon polled is recorded with the Slurm calls that
// followed it; then the simulator's decision step (core/controller.hpp, as simulate runs it) is
// fed the same snapshots, registrations and times, and must make the same calls, step by step.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/controller.hpp"
#include "gaptrain/protocol.hpp"
#include "running_daemon.hpp"
#include "simulator/replayed_slurm.hpp"

namespace gaptrain::daemon::equivalence_test {
namespace {

using Clock = std::chrono::steady_clock;

// One Slurm call, as text for comparing, and its answer for replaying.
struct Call {
  std::string what;
  core::ActionResult result;
  core::GrowResult grow;
};

std::string text(const std::vector<std::string>& nodes) {
  return core::join_nodes(nodes);
}

std::string describe(const core::ShrinkRequest& r) {
  return "shrink " + std::to_string(r.job_id) + " keep " + text(r.keep_nodes);
}
std::string describe(const core::GrowRequest& r) {
  return "grow " + std::to_string(r.job_id) + " " + text(r.add_nodes) + " lease " +
         std::to_string(r.time_limit_minutes);
}
std::string describe(const std::vector<std::uint32_t>& ids) {
  std::ostringstream out;
  out << "release";
  for (const std::uint32_t id : ids) out << ' ' << id;
  return out.str();
}
std::string describe_limit(std::uint32_t job, std::uint32_t minutes) {
  return "time limit " + std::to_string(job) + " " + std::to_string(minutes);
}
std::string describe(const core::AdmitRequest& r) {
  return "admit " + std::to_string(r.job_id) + " " + text(r.nodes) + " lease " +
         std::to_string(r.time_limit_minutes);
}

// The daemon's side: the simulator's Slurm, shared with the test's thread, recording each poll's
// snapshot and the calls made after it.
class RecordedSlurm final : public core::SlurmQueries, public core::SlurmActions {
 public:
  struct Step {
    core::Snapshot snapshot;
    std::vector<Call> calls;
  };

  RecordedSlurm(const sim::HoleTrace& nodes, const std::string& elastic_partition,
                std::int64_t epoch, const std::string& home_partition)
      : slurm_(nodes, static_cast<int>(nodes.node_names.size()), elastic_partition, epoch,
               sim::Placement::trace, true, sim::ElasticSetup{.home_partition = home_partition}) {}

  // The test's side: `change` runs on the cluster at the wall clock's time.
  template <typename Change>
  auto with_cluster(Change change) {
    const std::lock_guard lock(mutex_);
    slurm_.set_time(seconds_now());
    return change(slurm_);
  }
  std::vector<Step> steps() {
    const std::lock_guard lock(mutex_);
    return steps_;
  }

  Result poll(core::Snapshot& snapshot, std::int64_t now, bool full) override {
    const std::lock_guard lock(mutex_);
    slurm_.set_time(seconds_now());
    const Result result = slurm_.poll(snapshot, now, full);
    steps_.push_back({snapshot, {}});
    return result;
  }
  Result load_config(Config& config) override { return slurm_.load_config(config); }
  core::ActionResult shrink(const core::ShrinkRequest& r) override {
    return record(describe(r), [&] { return slurm_.shrink(r); });
  }
  core::GrowResult grow(const core::GrowRequest& r) override {
    const std::lock_guard lock(mutex_);
    core::GrowResult result = slurm_.grow(r);
    steps_.back().calls.push_back({describe(r), {result.ok, result.error}, result});
    return result;
  }
  core::ActionResult release(const std::vector<std::uint32_t>& ids) override {
    return record(describe(ids), [&] { return slurm_.release(ids); });
  }
  core::ActionResult set_time_limit(std::uint32_t job, std::uint32_t minutes) override {
    return record(describe_limit(job, minutes),
                  [&] { return slurm_.set_time_limit(job, minutes); });
  }
  core::ActionResult admit(const core::AdmitRequest& r) override {
    return record(describe(r), [&] { return slurm_.admit(r); });
  }
  core::ActionResult requeue(std::uint32_t job) override {
    return record("requeue " + std::to_string(job), [&] { return slurm_.requeue(job); });
  }
  core::ActionResult park(std::uint32_t job) override {
    return record("park " + std::to_string(job), [&] { return slurm_.park(job); });
  }

  std::int64_t epoch() const { return slurm_.epoch(); }

 private:
  double seconds_now() const {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
               .count() -
           static_cast<double>(slurm_.epoch());
  }
  template <typename Act>
  core::ActionResult record(std::string what, Act act) {
    const std::lock_guard lock(mutex_);
    const core::ActionResult result = act();
    steps_.back().calls.push_back({std::move(what), result, {}});
    return result;
  }

  std::mutex mutex_;
  sim::ReplayedSlurm slurm_;
  std::vector<Step> steps_;
};

// The simulator's side: answers each call as the daemon's Slurm answered it, and notes the calls.
class ReplayedAnswers final : public core::SlurmActions {
 public:
  void expect(std::vector<Call> calls) {
    expected_ = std::move(calls);
    next_ = 0;
    made_.clear();
  }
  const std::vector<std::string>& made() const { return made_; }

  core::ActionResult shrink(const core::ShrinkRequest& r) override {
    return answer(describe(r)).result;
  }
  core::GrowResult grow(const core::GrowRequest& r) override { return answer(describe(r)).grow; }
  core::ActionResult release(const std::vector<std::uint32_t>& ids) override {
    return answer(describe(ids)).result;
  }
  core::ActionResult set_time_limit(std::uint32_t job, std::uint32_t minutes) override {
    return answer(describe_limit(job, minutes)).result;
  }
  core::ActionResult admit(const core::AdmitRequest& r) override {
    return answer(describe(r)).result;
  }
  core::ActionResult requeue(std::uint32_t job) override {
    return answer("requeue " + std::to_string(job)).result;
  }
  core::ActionResult park(std::uint32_t job) override {
    return answer("park " + std::to_string(job)).result;
  }

 private:
  Call answer(std::string what) {
    made_.push_back(what);
    if (next_ < expected_.size() && expected_[next_].what == what) return expected_[next_++];
    return {what, {false, "the daemon made no such call here"}, {false, "no such call", {}}};
  }

  std::vector<Call> expected_;
  std::size_t next_ = 0;
  std::vector<std::string> made_;
};

// Waits up to 30 s for `done`, checking every 50 ms.
template <typename Done>
bool eventually(Done done) {
  const auto give_up = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < give_up) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

protocol::JobRegistration registration_of(std::uint32_t id, const core::Job& job, int min_nodes) {
  protocol::JobRegistration r;
  r.job_id = id;
  r.user = job.user;
  r.batch_host = job.batch_host;
  r.min_nodes = min_nodes;
  r.max_nodes = 4;
  r.curve = ScalingCurve({{1, 100.0}, {2, 190.0}, {4, 360.0}});
  r.up_cost_s = 5.0;
  r.down_cost_s = 5.0;
  return r;
}

// What a scenario does to the cluster while the daemon runs, and waits for.
struct Scenario {
  RecordedSlurm& slurm;
  testing::RunningDaemon& gaptraind;
  std::map<std::uint32_t, protocol::JobRegistration>& registrations;
  std::size_t grown;  // the nodes the jobs hold when they grew into every hole they may

  void reg(std::uint32_t id, int min_nodes) {
    const core::Job job = *slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.job(id); });
    registrations[id] = registration_of(id, job, min_nodes);
    const testing::Answer answer =
        gaptraind.send(protocol::encode(registrations[id]), "127.0.0.1", std::chrono::seconds(10));
    ASSERT_TRUE(answer.reply) << "registration of " << id << " got no answer";
    EXPECT_NE(answer.reply->find(R"("ok":true)"), std::string::npos) << *answer.reply;
  }
  bool running(std::uint32_t id) {
    return slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.running(id); });
  }
  std::vector<int> held_by(std::uint32_t id) {
    return slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.nodes_of(id); });
  }
  std::size_t regular_waits() {
    return slurm.with_cluster([](sim::ReplayedSlurm& s) { return s.regular_waits().size(); });
  }
};

// Six holes with no known end, and two held elastic jobs: gaptraind admits both; registered,
// they grow into the other holes. Returns their ids.
std::pair<std::uint32_t, std::uint32_t> two_jobs_grown(Scenario& c) {
  // Two names, not a structured binding: Clang 14 (the sanitized build's) cannot capture one.
  const auto ids = c.slurm.with_cluster([](sim::ReplayedSlurm& s) {
    for (int n = 0; n < 6; ++n) s.free_node(n, sim::kUnknownEnd);
    return std::pair{s.submit_elastic("a", 1, 4), s.submit_elastic("b", 2, 4)};
  });
  const std::uint32_t a = ids.first, b = ids.second;
  EXPECT_TRUE(eventually([&] { return c.running(a) && c.running(b); })) << "no admission";
  c.reg(a, 1);
  c.reg(b, 2);
  EXPECT_TRUE(eventually([&] { return c.held_by(a).size() + c.held_by(b).size() == c.grown; }))
      << "the jobs did not grow into every hole";
  return {a, b};
}

// Today's mode: the regular workload takes one of a's satellites, then b's batch host: a
// shrinks, b is requeued and admitted again on what is left; both nodes come back and the jobs
// grow again.
void satellite_then_batch_host(Scenario& c) {
  const auto ids = two_jobs_grown(c);  // not a structured binding (two_jobs_grown says why)
  const std::uint32_t a = ids.first, b = ids.second;
  const int satellite = c.held_by(a).back();
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.take_node(satellite); });
  ASSERT_TRUE(eventually([&] { return c.regular_waits() == 1; })) << "the node was not given back";
  const int batch_host = c.held_by(b).front();
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.take_node(batch_host); });
  ASSERT_TRUE(eventually([&] { return c.regular_waits() == 2; }))
      << "the batch host was not given back";
  ASSERT_TRUE(eventually([&] { return c.running(b); })) << "b was not admitted again";
  c.reg(b, 2);
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) {
    s.free_node(satellite, sim::kUnknownEnd);
    s.free_node(batch_host, sim::kUnknownEnd);
    return 0;
  });
  ASSERT_TRUE(eventually([&] { return c.held_by(a).size() + c.held_by(b).size() == c.grown; }))
      << "the jobs did not grow back";
}

// The home mode: both jobs' batch scripts on the home node, every training node a satellite.
// The regular workload takes one node of each: they shrink (none is requeued: no batch host
// trains); the nodes come back and the jobs grow again.
void one_node_of_each(Scenario& c) {
  const auto ids = two_jobs_grown(c);  // not a structured binding (two_jobs_grown says why)
  const std::uint32_t a = ids.first, b = ids.second;
  const int of_a = c.held_by(a).back();
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.take_node(of_a); });
  ASSERT_TRUE(eventually([&] { return c.regular_waits() == 1; })) << "a's node was not given back";
  const int of_b = c.held_by(b).back();
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) { return s.take_node(of_b); });
  ASSERT_TRUE(eventually([&] { return c.regular_waits() == 2; })) << "b's node was not given back";
  EXPECT_TRUE(c.running(a) && c.running(b)) << "a job at home stopped";
  c.slurm.with_cluster([&](sim::ReplayedSlurm& s) {
    s.free_node(of_a, sim::kUnknownEnd);
    s.free_node(of_b, sim::kUnknownEnd);
    return 0;
  });
  ASSERT_TRUE(eventually([&] { return c.held_by(a).size() + c.held_by(b).size() == c.grown; }))
      << "the jobs did not grow back";
}

// The daemon runs `scenario` on six nodes with `config` (two elastic jobs grown into every hole
// but the `config.idle_reserve_nodes` kept idle, nodes taken by regular jobs and given back),
// then the simulator's Controller is fed what the daemon polled and must make the same calls,
// decision by decision.
void expect_the_same_decisions(core::DaemonConfig config, void (*scenario)(Scenario&)) {
  sim::HoleTrace nodes;
  for (int n = 1; n <= 6; ++n) nodes.node_names.push_back("n" + std::to_string(n));
  const auto epoch = static_cast<std::int64_t>(std::time(nullptr)) - 1;
  RecordedSlurm slurm(nodes, config.elastic_partitions.first(), epoch, config.home_partition);
  const std::size_t grown = 6 - static_cast<std::size_t>(config.idle_reserve_nodes);

  std::mutex reports_mutex;
  std::vector<PollReport> reports;
  config.poll_interval_s = 0.5;
  config.log_level = core::LogLevel::warning;
  std::map<std::uint32_t, protocol::JobRegistration> registrations;
  {
    testing::RunningDaemon gaptraind(config, slurm, slurm, [&](const PollReport& report) {
      const std::lock_guard lock(reports_mutex);
      reports.push_back(report);
    });
    ASSERT_TRUE(gaptraind.started()) << gaptraind.error();
    Scenario cluster{slurm, gaptraind, registrations, grown};
    scenario(cluster);
    if (::testing::Test::HasFatalFailure()) return;
  }  // gaptraind stops

  const std::vector<RecordedSlurm::Step> steps = slurm.steps();
  const std::lock_guard lock(reports_mutex);
  // The last poll may have been cut short by the stop: only decisions the daemon reported.
  ASSERT_LE(reports.size(), steps.size());
  ASSERT_GT(reports.size(), 5U);

  ReplayedAnswers answers;
  core::Controller simulated(answers, cycle_settings(config), resizer_settings(config));
  std::size_t calls = 0;
  for (std::size_t k = 0; k < reports.size(); ++k) {
    answers.expect(steps[k].calls);
    (void)simulated.observe(steps[k].snapshot, reports[k].decided_at);
    for (const std::uint32_t id : reports[k].registered) {
      const auto refused = simulated.add(registrations.at(id), reports[k].decided_at.wall);
      EXPECT_FALSE(refused) << "step " << k << ": " << *refused;
    }
    simulated.record(simulated.decide(reports[k].decided_at), reports[k].decided_at);
    std::vector<std::string> daemon_calls;
    for (const Call& call : steps[k].calls) daemon_calls.push_back(call.what);
    EXPECT_EQ(answers.made(), daemon_calls) << "at decision " << k << " of " << reports.size();
    calls += daemon_calls.size();
  }
  // Admissions, grows, a shrink, a requeue, releases and leases were compared, not nothing.
  EXPECT_GE(calls, 8U);
}

TEST(Equivalence, TheSimulatorDecidesWhatTheDaemonDecidesOnTheSameSnapshots) {
  if (auto why = testing::RunningDaemon::unavailable()) GTEST_SKIP() << *why;
  expect_the_same_decisions(core::DaemonConfig{}, satellite_then_batch_host);
}

// Every key of gaptraind.json that reaches a decision set to another value than its default
// (those of transport, logging and the state file do not reach one), but home_partition (its
// scenario differs: no batch host on a training node, no requeue; the test below) and resize
// (false: no call at all).
core::DaemonConfig every_decision_key_changed() {
  core::DaemonConfig config;
  config.elastic_partitions = core::ElasticPartitions("gpu");
  config.node_types = {"a100", "v100"};
  config.satellite_qos = "satellite";
  config.satellite_partition = "satellites";
  config.satellite_reservation = "gaptrain-satellites";
  config.horizon_s = 7200.0;
  config.lease_s = 600.0;
  config.drain_grace_s = 5.0;
  config.reclaim_grace_s = 3.0;
  config.max_notice_s = 60.0;
  config.idle_reserve_nodes = 1;
  config.objective = allocator::Objective::fair;
  config.queue.max_running_per_user = 5;
  config.queue.max_nodes_per_user = 6;
  config.queue.max_running_per_account = 5;
  config.queue.max_nodes_per_account = 6;
  config.queue.max_elastic_percent = 90;
  config.queue.account_weights = {{"physics", 2.0}};
  return config;
}

TEST(Equivalence, EveryDecisionKeyOfTheConfigurationIsTheSimulatorsToo) {
  if (auto why = testing::RunningDaemon::unavailable()) GTEST_SKIP() << *why;
  expect_the_same_decisions(every_decision_key_changed(), satellite_then_batch_host);
}

// The home mode's scenario with every other decision key changed too.
TEST(Equivalence, TheHomeModeIsTheSimulatorsToo) {
  if (auto why = testing::RunningDaemon::unavailable()) GTEST_SKIP() << *why;
  core::DaemonConfig config = every_decision_key_changed();
  config.home_partition = "elastic-home";
  expect_the_same_decisions(config, one_node_of_each);
}

}  // namespace
}  // namespace gaptrain::daemon::equivalence_test
