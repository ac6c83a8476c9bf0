// gaptraind's loop stays responsive whatever Slurm does: the real
// Daemon (sd-event loop, LineServer on loopback, munge authentication through a private munged)
// runs on a thread against a Slurm whose polls wait on a gate the test holds closed, as a
// slurmctld that is down or slow makes libslurm wait. Nothing here asserts how long anything
// took: a client timeout well below a blocked poll tells "answered" from "stuck".
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <json/reader.h>
#include <json/value.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon.hpp"
#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "running_daemon.hpp"

namespace gaptrain::daemon::daemon_loop_test {
namespace {

using Clock = std::chrono::steady_clock;

// Two idle nodes; polls wait while the gate is closed. Counts polls.
class GatedSlurm final : public core::SlurmQueries, public core::SlurmActions {
 public:
  GatedSlurm() {
    cluster_.nodes = {{"n1", core::NodeState::idle, 0}, {"n2", core::NodeState::idle, 0}};
    cluster_.partitions = {{"elastic", {"n1", "n2"}}, {"regular", {"n1", "n2"}}};
  }

  Result poll(core::Snapshot& snapshot, std::int64_t now, bool /*full*/) override {
    std::unique_lock lock(mutex_);
    ++polls_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    snapshot = cluster_;
    snapshot.taken_at = now;
    return {true, ""};
  }
  Result load_config(Config& config) override {
    config = Config{};
    return {true, ""};
  }
  core::ActionResult shrink(const core::ShrinkRequest&) override { return refused(); }
  // Waits while the action gate is closed, as a resize waits on a slurmctld that is slow.
  core::GrowResult grow(const core::GrowRequest&) override {
    std::unique_lock lock(mutex_);
    ++grows_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return actions_open_; });
    return {false, "not in this test", {}};
  }
  core::ActionResult release(const std::vector<std::uint32_t>&) override { return refused(); }
  core::ActionResult set_time_limit(std::uint32_t, std::uint32_t) override { return refused(); }
  core::ActionResult admit(const core::AdmitRequest&) override { return refused(); }
  core::ActionResult requeue(std::uint32_t) override { return refused(); }
  core::ActionResult park(std::uint32_t) override { return refused(); }

  void set_gate(bool open) {
    const std::lock_guard lock(mutex_);
    open_ = open;
    changed_.notify_all();
  }
  void set_action_gate(bool open) {
    const std::lock_guard lock(mutex_);
    actions_open_ = open;
    changed_.notify_all();
  }
  // Whether a grow has started within 30 s.
  bool wait_for_grow() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return grows_ > 0; });
  }
  void add_job(core::Job job) {
    const std::lock_guard lock(mutex_);
    for (core::Node& node : cluster_.nodes) {
      if (std::find(job.nodes.begin(), job.nodes.end(), node.name) != job.nodes.end()) {
        node.state = core::NodeState::allocated;
      }
    }
    cluster_.jobs.push_back(std::move(job));
  }
  std::uint64_t polls() {
    const std::lock_guard lock(mutex_);
    return polls_;
  }
  // Whether `count` polls have started within 30 s.
  bool wait_for_polls(std::uint64_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return polls_ >= count; });
  }

 private:
  static core::ActionResult refused() { return {false, "not in this test"}; }
  std::mutex mutex_;
  std::condition_variable changed_;
  core::Snapshot cluster_;
  bool open_ = true;
  bool actions_open_ = true;
  std::uint64_t polls_ = 0;
  std::uint64_t grows_ = 0;
};

using testing::Answer;

class DaemonLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::RunningDaemon::unavailable()) GTEST_SKIP() << *why;
    core::DaemonConfig config;
    config.poll_interval_s = 3600.0;  // only the polls the test causes
    config.resize = resize_;
    config.log_level = core::LogLevel::warning;
    gaptraind_ = std::make_unique<testing::RunningDaemon>(config, slurm_, slurm_);
    ASSERT_TRUE(gaptraind_->started()) << gaptraind_->error();
  }

  void TearDown() override {
    // A poll or resize waiting on a closed gate would hold the daemon's stop.
    slurm_.set_gate(true);
    slurm_.set_action_gate(true);
    gaptraind_.reset();
  }

  Answer send(const std::string& payload, const char* source, std::chrono::milliseconds timeout) {
    return gaptraind_->send(payload, source, timeout);
  }
  Json::Value status_value(const std::string& field) { return gaptraind_->status_value(field); }

  std::string node_freed() {
    protocol::NodeFreed event;
    event.job_id = 1;
    event.node = "n1";
    return protocol::encode(event);
  }

  // Job 42, running on n1 of partition elastic, as Slurm shows it from the next poll on.
  void start_job_42() {
    core::Job job;
    job.id = 42;
    job.user = "root";
    job.partition = "elastic";
    job.state = core::JobState::running;
    job.nodes = {"n1"};
    job.batch_host = "n1";
    job.start_time = std::time(nullptr);
    slurm_.add_job(job);
  }
  protocol::JobRegistration registration_42() {
    protocol::JobRegistration registration;
    registration.job_id = 42;
    registration.user = "root";
    registration.batch_host = "n1";
    registration.max_nodes = 2;
    registration.curve = ScalingCurve({{1, 100.0}, {2, 200.0}});
    return registration;
  }

  bool resize_ = false;
  GatedSlurm slurm_;
  std::unique_ptr<testing::RunningDaemon> gaptraind_;
};

// `gaptrain pause` is kept in the state file: a restarted gaptraind is paused still.
TEST(DaemonRestart, APauseSurvivesARestart) {
  if (auto why = testing::RunningDaemon::unavailable()) GTEST_SKIP() << *why;
  std::string dir = "/tmp/gaptrain-restart-test-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string state_file = dir + "/state.json";
  GatedSlurm slurm;
  core::DaemonConfig config;
  config.poll_interval_s = 3600.0;
  config.log_level = core::LogLevel::warning;
  {
    testing::RunningDaemon first(config, slurm, slurm, {}, state_file);
    ASSERT_TRUE(first.started()) << first.error();
    const Answer paused = first.send(protocol::encode(protocol::OperationRequest{"pause"}),
                                     "127.0.0.1", std::chrono::milliseconds(5000));
    ASSERT_TRUE(paused.reply);
    EXPECT_NE(paused.reply->find(R"("operation":"paused")"), std::string::npos) << *paused.reply;
  }
  testing::RunningDaemon second(config, slurm, slurm, {}, state_file);
  ASSERT_TRUE(second.started()) << second.error();
  EXPECT_EQ(second.status_value("operation").asString(), "paused");
  std::filesystem::remove_all(dir);
}

TEST_F(DaemonLoopTest, StatusAndPluginEventsAreAnsweredWhileAPollWaitsForSlurm) {
  slurm_.set_gate(false);
  // A plugin event makes the daemon poll; the poll now waits as on a slurmctld that is down.
  const Answer first = send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000));
  ASSERT_TRUE(first.reply) << "the first event got no answer";
  EXPECT_NE(first.reply->find(R"("ok":true)"), std::string::npos) << *first.reply;
  ASSERT_TRUE(slurm_.wait_for_polls(2)) << "the event did not start a poll";

  const Answer status = send(protocol::encode(protocol::StatusRequest{}), "127.0.0.1",
                             std::chrono::milliseconds(5000));
  ASSERT_TRUE(status.reply) << "no status answer while the poll waits";
  EXPECT_NE(status.reply->find(R"("ok":true)"), std::string::npos) << *status.reply;
  const Answer event = send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000));
  ASSERT_TRUE(event.reply) << "no answer to a plugin event while the poll waits";
  EXPECT_NE(event.reply->find(R"("ok":true)"), std::string::npos) << *event.reply;
  EXPECT_EQ(slurm_.polls(), 2U) << "a second poll started beside the one that waits";
  std::cout << "while a poll waits: status answered in " << status.ms << " ms, a plugin event in "
            << event.ms << " ms\n";
  slurm_.set_gate(true);
}

TEST_F(DaemonLoopTest, ARegistrationBeforeItsJobIsSeenIsRegisteredByTheNextPoll) {
  start_job_42();  // started after the last poll: the daemon has not seen it
  const Answer answer =
      send(protocol::encode(registration_42()), "127.0.0.1", std::chrono::milliseconds(10000));
  ASSERT_TRUE(answer.reply);
  EXPECT_NE(answer.reply->find(R"("ok":true)"), std::string::npos) << *answer.reply;
  EXPECT_EQ(status_value("elastic_jobs").size(), 1U);
}

// The launcher's first report often comes while the plugin's registration of its job waits for
// the poll that sees the job run: it is answered with nothing to follow yet, not refused (a
// refusal counted one rejected request at every job start, and made the launcher register again).
TEST_F(DaemonLoopTest, AReportWhileItsJobsRegistrationWaitsForAPollIsNotRefused) {
  slurm_.set_gate(false);
  ASSERT_TRUE(send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000)).reply);
  ASSERT_TRUE(slurm_.wait_for_polls(2));  // a poll waits at the gate
  start_job_42();
  std::optional<Answer> registered;
  std::thread registration([&] {
    registered =
        send(protocol::encode(registration_42()), "127.0.0.1", std::chrono::milliseconds(20000));
  });
  // The registration is read, authenticated and put to wait for the poll well within this.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  protocol::LauncherReport report;
  report.job_id = 42;
  const Answer first = send(protocol::encode(report), "127.0.0.1", std::chrono::milliseconds(5000));
  slurm_.set_gate(true);
  registration.join();
  ASSERT_TRUE(first.reply);
  EXPECT_NE(first.reply->find(R"("ok":true)"), std::string::npos) << *first.reply;
  EXPECT_EQ(protocol::decode_launch_reply(*first.reply).nodes.size(), 0U) << *first.reply;
  EXPECT_EQ(status_value("events")["rejected"].asUInt64(), 0U);
  ASSERT_TRUE(registered && registered->reply);
  EXPECT_NE(registered->reply->find(R"("ok":true)"), std::string::npos) << *registered->reply;
  // Once registered, its report is followed as ever; one for a job never registered is refused.
  const Answer later = send(protocol::encode(report), "127.0.0.1", std::chrono::milliseconds(5000));
  ASSERT_TRUE(later.reply);
  EXPECT_EQ(protocol::decode_launch_reply(*later.reply).nodes, (std::vector<std::string>{"n1"}));
  report.job_id = 43;
  const Answer unknown =
      send(protocol::encode(report), "127.0.0.1", std::chrono::milliseconds(5000));
  ASSERT_TRUE(unknown.reply);
  EXPECT_NE(unknown.reply->find("job 43 is not registered"), std::string::npos) << *unknown.reply;
}

TEST_F(DaemonLoopTest, RegistrationsOfUnknownJobsCostOnePollHoweverMany) {
  slurm_.set_gate(false);
  ASSERT_TRUE(send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000)).reply);
  ASSERT_TRUE(slurm_.wait_for_polls(2));
  const std::uint64_t polls_before = slurm_.polls();

  // 1,000 registrations of jobs Slurm does not have, from one user and one host, each waiting
  // for its answer no longer than the plugin does (50 ms).
  constexpr int kSenders = 8;
  constexpr int kEach = 125;
  std::atomic<int> answered{0};
  std::vector<std::thread> senders;
  const auto start = Clock::now();
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&, s] {
      for (int i = 0; i < kEach; ++i) {
        protocol::JobRegistration registration;
        registration.job_id = static_cast<std::uint32_t>(100000 + s * kEach + i);
        registration.user = "root";
        registration.batch_host = "n1";
        if (send(protocol::encode(registration), "127.0.0.1", std::chrono::milliseconds(50))
                .reply) {
          ++answered;
        }
      }
    });
  }
  for (std::thread& sender : senders) sender.join();
  const double attack_s = std::chrono::duration<double>(Clock::now() - start).count();
  // Requests are authenticated in order: once this status is answered, every registration the
  // daemon took is waiting for the poll.
  status_value("events");
  slurm_.set_gate(true);

  const auto give_up = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < give_up && status_value("events")["rejected"].asUInt64() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const Json::Value events = status_value("events");
  EXPECT_GT(events["rejected"].asUInt64(), 0U) << "the registrations were never answered";
  const std::uint64_t polls = slurm_.polls() - polls_before;
  std::cout << kSenders * kEach << " registrations in " << attack_s << " s (" << answered
            << " answered within 50 ms), " << events["rejected"].asUInt64()
            << " refused after polling; polls they cost: " << polls << "\n";
  EXPECT_LE(polls, 1U) << "registrations of unknown jobs made the daemon poll " << polls
                       << " times";
}

// `gaptrain job ID`: a registered job's reported progress is in its history, as the
// training timed it (stamps of the last few seconds, as a launcher sends them); a job gaptrain
// never managed gets its own refusal.
TEST_F(DaemonLoopTest, AJobsHistoryHoldsItsReportedProgress) {
  start_job_42();
  const Answer registered =
      send(protocol::encode(registration_42()), "127.0.0.1", std::chrono::milliseconds(10000));
  ASSERT_TRUE(registered.reply);
  ASSERT_NE(registered.reply->find(R"("ok":true)"), std::string::npos) << *registered.reply;
  protocol::LauncherReport report;
  report.job_id = 42;
  report.running = {"n1"};
  report.world_size = 1;
  const double written = static_cast<double>(std::time(nullptr)) - 3.0;
  for (const double samples : {100.0, 300.0}) {
    report.samples_done = samples;
    report.progress_time = written + samples / 200.0;
    ASSERT_TRUE(send(protocol::encode(report), "127.0.0.1", std::chrono::milliseconds(5000)).reply);
  }
  const Answer job = send(protocol::encode(protocol::JobRequest{42}), "127.0.0.2",
                          std::chrono::milliseconds(5000));
  ASSERT_TRUE(job.reply);
  Json::Value answer;
  ASSERT_TRUE(Json::Reader().parse(*job.reply, answer)) << *job.reply;
  ASSERT_TRUE(answer["ok"].asBool()) << *job.reply;
  const Json::Value& progress = answer["job"]["progress"];
  ASSERT_EQ(progress.size(), 2U) << *job.reply;
  // The daemon's history clock and the wall clock differ by the milliseconds of this run.
  EXPECT_NEAR(progress[1][0].asDouble(), written + 1.5, 0.5);
  EXPECT_NEAR(progress[1][0].asDouble() - progress[0][0].asDouble(), 1.0, 1e-6);
  EXPECT_DOUBLE_EQ(progress[1][1].asDouble(), 300.0);
  EXPECT_EQ(answer["job"]["nodes_over_time"][0][1].asInt(), 1);
  EXPECT_EQ(answer["job"]["curve"]["source"].asString(), "given");

  const Answer unknown = send(protocol::encode(protocol::JobRequest{99}), "127.0.0.2",
                              std::chrono::milliseconds(5000));
  ASSERT_TRUE(unknown.reply);
  EXPECT_NE(unknown.reply->find(R"("unknown_job":true)"), std::string::npos) << *unknown.reply;
  EXPECT_NE(unknown.reply->find("not in gaptraind's history"), std::string::npos) << *unknown.reply;
}

// With resizing on: a resize that waits for Slurm does not stop the loop either.
class DaemonActingTest : public DaemonLoopTest {
 protected:
  void SetUp() override {
    resize_ = true;
    DaemonLoopTest::SetUp();
  }
};

TEST_F(DaemonActingTest, AResizeThatWaitsForSlurmLeavesStatusAndEventsAnswered) {
  slurm_.set_action_gate(false);
  start_job_42();
  // Registered, the job is grown into the idle n2: that grow now waits.
  const Answer registered =
      send(protocol::encode(registration_42()), "127.0.0.1", std::chrono::milliseconds(10000));
  ASSERT_TRUE(registered.reply);
  ASSERT_NE(registered.reply->find(R"("ok":true)"), std::string::npos) << *registered.reply;
  // A plugin event: a poll and a plan now, if the registration's own poll did not plan yet.
  ASSERT_TRUE(send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000)).reply);
  ASSERT_TRUE(slurm_.wait_for_grow()) << "the daemon did not grow the job";

  const Answer status = send(protocol::encode(protocol::StatusRequest{}), "127.0.0.2",
                             std::chrono::milliseconds(5000));
  ASSERT_TRUE(status.reply) << "no status answer while a resize waits for Slurm";
  EXPECT_NE(status.reply->find(R"("job_id":42)"), std::string::npos) << *status.reply;
  const Answer event = send(node_freed(), "127.0.0.1", std::chrono::milliseconds(5000));
  ASSERT_TRUE(event.reply) << "no answer to a plugin event while a resize waits for Slurm";
  EXPECT_NE(event.reply->find(R"("ok":true)"), std::string::npos) << *event.reply;

  // The job's launcher reports meanwhile: its report is answered once the resize is done.
  protocol::LauncherReport report;
  report.job_id = 42;
  report.running = {"n1"};
  Answer launcher;
  std::thread reporter([&] {
    launcher = send(protocol::encode(report), "127.0.0.1", std::chrono::milliseconds(10000));
  });
  slurm_.set_action_gate(true);
  reporter.join();
  ASSERT_TRUE(launcher.reply) << "the launcher's report was never answered";
  EXPECT_NE(launcher.reply->find(R"("launch")"), std::string::npos) << *launcher.reply;
}

}  // namespace
}  // namespace gaptrain::daemon::daemon_loop_test
