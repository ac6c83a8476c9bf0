#include "metrics.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace gaptrain::daemon::metrics_test {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// Job 7 of the elastic partition, running on n1 and n2.
core::Job elastic_job_7(const std::string& user, const std::string& account) {
  core::Job job;
  job.id = 7;
  job.user = user;
  job.account = account;
  job.state = core::JobState::running;
  job.partition = "elastic";
  job.nodes = {"n1", "n2"};
  job.batch_host = "n1";
  return job;
}

// `job` registered and managed.
core::ElasticJobs managing(const core::Job& job) {
  core::ElasticJobs elastic;
  protocol::JobRegistration r;
  r.job_id = job.id;
  r.user = job.user;
  r.max_nodes = 4;
  EXPECT_FALSE(elastic.add(r, &job, "elastic", 0));
  return elastic;
}

std::vector<core::Hole> holes_on(const std::vector<std::string>& nodes) {
  std::vector<core::Hole> holes(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) holes[i].node = nodes[i];
  return holes;
}

TEST(Metrics, ReportTheModelAndCountIncreasesOnly) {
  core::Snapshot snapshot;
  for (const char* name : {"n1", "n2", "n3", "n4"}) {
    snapshot.nodes.push_back({name, core::NodeState::idle, 0});
  }
  const core::Job elastic_job = elastic_job_7("", "");
  snapshot.jobs.push_back(elastic_job);
  core::Job waiting;
  waiting.id = 8;
  waiting.state = core::JobState::pending;
  waiting.partition = "regular";
  snapshot.jobs.push_back(waiting);

  const core::ElasticJobs elastic = managing(elastic_job);
  const std::vector<core::Hole> holes = holes_on({"n3", "n4"});
  core::ActionCounts actions;
  actions.done["grow"] = 3;
  actions.failed["shrink"] = 1;
  EventCounts events{.accepted = 5, .rejected = 2};

  Metrics metrics;
  metrics.update(snapshot, holes, elastic, "elastic", actions, events, 100.0);
  metrics.observe_solve(0.02);
  metrics.observe_reclaim(0.6);
  std::string text = metrics.text();
  EXPECT_TRUE(has_line(text, "gaptrain_hole_nodes 2")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_elastic_nodes{partition="elastic"} 2)")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_elastic_jobs_managed 1")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_jobs{kind="regular",state="pending"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_jobs{kind="elastic",state="running"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_actions_total{action="grow",result="done"} 3)")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_actions_total{action="shrink",result="failed"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_requests_total{result="rejected"} 2)")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_solve_seconds_count 1")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_reclaim_seconds_bucket{le="1"} 1)")) << text;

  // Counts are totals since start: a second update adds the increase, not the total again.
  actions.done["grow"] = 4;
  events.accepted = 6;
  snapshot.jobs.pop_back();
  metrics.update(snapshot, {}, elastic, "elastic", actions, events, 110.0);
  text = metrics.text();
  EXPECT_TRUE(has_line(text, R"(gaptrain_actions_total{action="grow",result="done"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_requests_total{result="accepted"} 6)")) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_jobs{kind="regular",state="pending"} 0)")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_hole_nodes 0")) << text;
}

TEST(Metrics, NodesByPartitionAndElasticNodeSecondsByUserAndAccount) {
  core::Snapshot snapshot;
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) {
    snapshot.nodes.push_back({name, core::NodeState::idle, 0});
  }
  snapshot.partitions = {{"batch", {"n1", "n2", "n3", "n4"}},
                         {"elastic", {"n1", "n2", "n3", "n4", "n5"}},
                         {"debug", {"n5"}}};
  snapshot.jobs.push_back(elastic_job_7("alice", "ml"));
  core::ElasticJobs elastic = managing(snapshot.jobs.back());
  const std::vector<core::Hole> holes = holes_on({"n3", "n5"});

  Metrics metrics;
  metrics.set_private_data(core::PrivateData{});  // slurm.conf without PrivateData
  metrics.update(snapshot, holes, elastic, "elastic", {}, {}, 100.0);
  metrics.update(snapshot, {}, elastic, "elastic", {}, {}, 130.0);
  const std::string alice = R"({account="ml",partition="elastic",user="alice"})";
  for (const std::string& line : {std::string(R"(gaptrain_hole_nodes{partition="batch"} 0)"),
                                  std::string(R"(gaptrain_hole_nodes{partition="elastic"} 0)"),
                                  std::string(R"(gaptrain_elastic_nodes{partition="elastic"} 2)"),
                                  "gaptrain_elastic_node_seconds_total" + alice + " 60"}) {
    EXPECT_TRUE(has_line(metrics.text(), line)) << line << "\n" << metrics.text();
  }

  // Holes counted in each partition that has them; the job's nodes freed, its use stops.
  snapshot.jobs.clear();
  elastic = core::ElasticJobs{};
  metrics.update(snapshot, holes, elastic, "elastic", {}, {}, 150.0);
  metrics.update(snapshot, holes, elastic, "elastic", {}, {}, 200.0);
  for (const std::string& line : {std::string(R"(gaptrain_hole_nodes{partition="batch"} 1)"),
                                  std::string(R"(gaptrain_hole_nodes{partition="elastic"} 2)"),
                                  std::string(R"(gaptrain_hole_nodes{partition="debug"} 1)"),
                                  std::string(R"(gaptrain_elastic_nodes{partition="elastic"} 0)"),
                                  "gaptrain_elastic_node_seconds_total" + alice + " 100"}) {
    EXPECT_TRUE(has_line(metrics.text(), line)) << line << "\n" << metrics.text();
  }
}

TEST(Metrics, ShowWhatAnAdminLetsGaptraindDo) {
  Metrics metrics;
  metrics.set_operation(core::Operation::paused);
  std::string text = metrics.text();
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"paused\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"running\"} 0")) << text;
  metrics.set_operation(core::Operation::running);
  text = metrics.text();
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"running\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"paused\"} 0")) << text;
}

// The endpoint has no viewer: where slurm.conf's PrivateData hides other users' usage, users
// or jobs from squeue, sshare and sacctmgr, the node-seconds carry no user (and no account
// where it hides accounts or usage); a reconfigure that sets it takes the labelled series off.
TEST(Metrics, NodeSecondsFollowSlurmsPrivateData) {
  core::Snapshot snapshot;
  snapshot.nodes = {{"n1", core::NodeState::allocated, 0}, {"n2", core::NodeState::allocated, 0}};
  snapshot.jobs.push_back(elastic_job_7("alice", "ml"));
  const core::ElasticJobs elastic = managing(snapshot.jobs.back());
  Metrics metrics;
  metrics.set_private_data(core::PrivateData{});
  metrics.update(snapshot, {}, elastic, "elastic", {}, {}, 100.0);
  metrics.update(snapshot, {}, elastic, "elastic", {}, {}, 110.0);
  ASSERT_NE(metrics.text().find(R"(user="alice")"), std::string::npos) << metrics.text();

  core::PrivateData usage_and_users;
  usage_and_users.usage = true;
  usage_and_users.users = true;
  metrics.set_private_data(usage_and_users);
  metrics.update(snapshot, {}, elastic, "elastic", {}, {}, 120.0);
  std::string text = metrics.text();
  EXPECT_EQ(text.find("alice"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(account="ml")"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, R"(gaptrain_elastic_node_seconds_total{partition="elastic"} 20)"))
      << text;

  core::PrivateData accounts_only;
  accounts_only.accounts = true;
  metrics.set_private_data(accounts_only);
  metrics.update(snapshot, {}, elastic, "elastic", {}, {}, 130.0);
  text = metrics.text();
  EXPECT_NE(text.find(R"(user="alice")"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(account="ml")"), std::string::npos) << text;

  // Before slurmctld said anything: nothing about any owner.
  Metrics fresh;
  fresh.update(snapshot, {}, elastic, "elastic", {}, {}, 100.0);
  fresh.update(snapshot, {}, elastic, "elastic", {}, {}, 110.0);
  EXPECT_EQ(fresh.text().find("alice"), std::string::npos) << fresh.text();
}

// A connection to 127.0.0.1:`port`, or -1.
int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// GET /metrics as Prometheus sends it; the whole answer ("" when none came within `wait_s`).
std::string scrape(std::uint16_t port, int wait_s) {
  const int fd = connect_to(port);
  if (fd < 0) return {};
  timeval timeout{wait_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const std::string request =
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  std::string answer;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
      static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    ssize_t got = 0;
    while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
      answer.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return answer;
}

// Clients that connect and send nothing, or half a request, do not keep scrapes out: each of
// these scrapes is answered while they stay connected (the exporter once answered one
// connection at a time and waited 30 s for each request).
TEST(Metrics, ScrapesAreAnsweredWhileIdleAndSlowConnectionsAreOpen) {
  Metrics metrics;
  metrics.set_operation(core::Operation::running);
  metrics.serve("127.0.0.1", 0);
  const std::uint16_t port = metrics.port();
  ASSERT_NE(port, 0);
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(connect_to(port));
  for (int i = 0; i < 2; ++i) {
    const int slow = connect_to(port);
    const std::string part = "GET /metr";
    if (slow >= 0) ::send(slow, part.data(), part.size(), MSG_NOSIGNAL);
    idle.push_back(slow);
  }
  for (const int fd : idle) ASSERT_GE(fd, 0);
  // Waits are bounds for a failing run to end, not expectations of speed.
  for (int i = 0; i < 3; ++i) {
    const std::string answer = scrape(port, 20);
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0U) << answer;
    EXPECT_NE(answer.find("gaptrain_operation{state=\"running\"} 1"), std::string::npos) << answer;
  }
  for (const int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace gaptrain::daemon::metrics_test
