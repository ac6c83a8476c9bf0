#include "metrics.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// Job 7 of the elastic partition, running on n1 and n2.
Job elastic_job_7(const std::string& user, const std::string& account) {
  Job job;
  job.id = 7;
  job.user = user;
  job.account = account;
  job.state = JobState::running;
  job.partition = "elastic";
  job.nodes = {"n1", "n2"};
  job.batch_host = "n1";
  return job;
}

// `job` registered and managed.
ElasticJobs managing(const Job& job) {
  ElasticJobs elastic;
  protocol::JobRegistration r;
  r.job_id = job.id;
  r.user = job.user;
  r.max_nodes = 4;
  EXPECT_FALSE(elastic.add(r, &job, "elastic", 0));
  return elastic;
}

std::vector<Hole> holes_on(const std::vector<std::string>& nodes) {
  std::vector<Hole> holes(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) holes[i].node = nodes[i];
  return holes;
}

TEST(Metrics, ReportTheModelAndCountIncreasesOnly) {
  Snapshot snapshot;
  for (const char* name : {"n1", "n2", "n3", "n4"}) {
    snapshot.nodes.push_back({name, NodeState::idle, 0});
  }
  const Job elastic_job = elastic_job_7("", "");
  snapshot.jobs.push_back(elastic_job);
  Job waiting;
  waiting.id = 8;
  waiting.state = JobState::pending;
  waiting.partition = "regular";
  snapshot.jobs.push_back(waiting);

  const ElasticJobs elastic = managing(elastic_job);
  const std::vector<Hole> holes = holes_on({"n3", "n4"});
  ActionCounts actions;
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
  Snapshot snapshot;
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) {
    snapshot.nodes.push_back({name, NodeState::idle, 0});
  }
  snapshot.partitions = {{"batch", {"n1", "n2", "n3", "n4"}},
                         {"elastic", {"n1", "n2", "n3", "n4", "n5"}},
                         {"debug", {"n5"}}};
  snapshot.jobs.push_back(elastic_job_7("alice", "ml"));
  ElasticJobs elastic = managing(snapshot.jobs.back());
  const std::vector<Hole> holes = holes_on({"n3", "n5"});

  Metrics metrics;
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
  elastic = ElasticJobs{};
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
  metrics.set_operation(Operation::paused);
  std::string text = metrics.text();
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"paused\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"running\"} 0")) << text;
  metrics.set_operation(Operation::running);
  text = metrics.text();
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"running\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "gaptrain_operation{state=\"paused\"} 0")) << text;
}

}  // namespace
}  // namespace gaptrain::daemon
