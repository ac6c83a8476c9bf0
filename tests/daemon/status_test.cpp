#include "status.hpp"

#include <gtest/gtest.h>
#include <json/json.h>

#include "status_command.hpp"

namespace gaptrain::daemon::status_test {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

struct World {
  core::Snapshot snapshot;
  std::vector<core::Hole> holes;
  core::ElasticJobs elastic;
};

World small_world() {
  World w;
  w.snapshot.taken_at = kNow;
  w.snapshot.nodes = {{"n1", core::NodeState::allocated, kNow - 500},
                      {"n2", core::NodeState::idle, kNow - 192},
                      {"n3", core::NodeState::planned, kNow - 30}};
  core::Job elastic;
  elastic.id = 41;
  elastic.user_id = 1001;
  elastic.user = "alice";
  elastic.partition = "elastic";
  elastic.state = core::JobState::running;
  elastic.nodes = {"n1"};
  elastic.batch_host = "n1";
  w.snapshot.jobs.push_back(elastic);
  core::Job waiting;
  waiting.id = 42;
  waiting.state = core::JobState::pending;
  waiting.start_time = kNow + 192;
  waiting.sched_nodes = {"n3"};
  w.snapshot.jobs.push_back(waiting);
  w.holes = find_holes(w.snapshot);
  protocol::JobRegistration r;
  r.job_id = 41;
  r.min_nodes = 1;
  r.max_nodes = 2;
  EXPECT_FALSE(w.elastic.add(r, &w.snapshot.jobs[0], "elastic", kNow));
  return w;
}

TEST(Status, JsonHasTheDocumentedShape) {
  const World w = small_world();
  const Json::Value status = status_json(w.snapshot, w.holes, w.elastic, {3, 1}, kNow - 1);

  ASSERT_EQ(status["holes"].size(), 2U);
  const Json::Value& n2 = status["holes"][0];
  EXPECT_EQ(n2["node"].asString(), "n2");
  EXPECT_EQ(n2["since"].asInt64(), kNow - 192);
  EXPECT_TRUE(n2["predicted_end"].isNull());
  EXPECT_TRUE(n2["next_job"].isNull());
  const Json::Value& n3 = status["holes"][1];
  EXPECT_EQ(n3["predicted_end"].asInt64(), kNow + 192);
  EXPECT_EQ(n3["next_job"].asUInt(), 42U);

  ASSERT_EQ(status["nodes"].size(), 3U);
  EXPECT_EQ(status["nodes"][0]["state"].asString(), "allocated");
  EXPECT_EQ(status["nodes"][0]["jobs"][0].asUInt(), 41U);
  EXPECT_TRUE(status["nodes"][1]["jobs"].isArray());
  EXPECT_EQ(status["nodes"][1]["jobs"].size(), 0U);
  EXPECT_EQ(status["nodes"][2]["state"].asString(), "planned");

  ASSERT_EQ(status["elastic_jobs"].size(), 1U);
  const Json::Value& job = status["elastic_jobs"][0];
  EXPECT_EQ(job["job_id"].asUInt(), 41U);
  EXPECT_EQ(job["user"].asString(), "alice");
  EXPECT_EQ(job["partition"].asString(), "elastic");
  EXPECT_EQ(job["nodes"][0].asString(), "n1");
  EXPECT_EQ(job["batch_host"].asString(), "n1");
  EXPECT_EQ(job["min_nodes"].asInt(), 1);
  EXPECT_EQ(job["max_nodes"].asInt(), 2);
  EXPECT_EQ(job["curve"]["source"].asString(), "assumed");
  EXPECT_EQ(job["curve"]["points"][0][0].asInt(), 1);
  EXPECT_TRUE(job["up_cost_s"].isDouble());
  EXPECT_TRUE(job["down_cost_s"].isDouble());
  // No launcher has reported yet.
  EXPECT_TRUE(job["samples_done"].isNull());
  EXPECT_TRUE(job["reported_at"].isNull());
  // Registered without a batch range: valued by its throughput.
  EXPECT_TRUE(job["batch"].isNull());
  EXPECT_TRUE(job["noise_scale"].isNull());
  EXPECT_TRUE(job["noise_scale_source"].isNull());

  EXPECT_EQ(status["events"]["accepted"].asUInt64(), 3U);
  EXPECT_EQ(status["events"]["rejected"].asUInt64(), 1U);
  EXPECT_EQ(status["last_poll"].asInt64(), kNow - 1);
}

TEST(Status, ShowsTheLaunchersProgress) {
  World w = small_world();
  ASSERT_TRUE(w.elastic.report({41, {"n1"}, {}, 1234.5, {}, {}, {}, {}}, kNow - 2, 0.0));
  const Json::Value status = status_json(w.snapshot, w.holes, w.elastic, {}, kNow);
  const Json::Value& job = status["elastic_jobs"][0];
  EXPECT_EQ(job["samples_done"].asDouble(), 1234.5);
  EXPECT_EQ(job["reported_at"].asInt64(), kNow - 2);
}

TEST(Status, ShowsTheBatchRangeAndTheNoiseScaleWithItsSource) {
  World w = small_world();
  protocol::JobRegistration r;
  r.job_id = 41;
  r.min_nodes = 1;
  r.max_nodes = 2;
  r.batch = BatchRange{128, 4096, 256};
  ASSERT_FALSE(w.elastic.add(r, &w.snapshot.jobs[0], "elastic", kNow));
  const auto job_status = [&w] {
    return status_json(w.snapshot, w.holes, w.elastic, {}, kNow)["elastic_jobs"][0];
  };
  Json::Value job = job_status();
  EXPECT_EQ(job["batch"]["tuned"].asInt(), 128);
  EXPECT_EQ(job["batch"]["max"].asInt(), 4096);
  EXPECT_EQ(job["batch"]["max_per_node"].asInt(), 256);
  EXPECT_EQ(job["noise_scale"].asDouble(), 128.0);
  EXPECT_EQ(job["noise_scale_source"].asString(), "assumed");

  protocol::LauncherReport report;
  report.job_id = 41;
  report.grad_sqr = 1.0;
  report.grad_var = 4.0;
  ASSERT_TRUE(w.elastic.report(report, kNow, 0.0));
  job = job_status();
  EXPECT_EQ(job["noise_scale"].asDouble(), 512.0);
  EXPECT_EQ(job["noise_scale_source"].asString(), "learned");

  r.noise_scale = 900.0;
  ASSERT_FALSE(w.elastic.add(r, &w.snapshot.jobs[0], "elastic", kNow));
  job = job_status();
  EXPECT_EQ(job["noise_scale"].asDouble(), 900.0);
  EXPECT_EQ(job["noise_scale_source"].asString(), "given");
}

TEST(Status, NotPolledYetIsNull) {
  const Json::Value status = status_json({}, {}, {}, {}, std::nullopt);
  EXPECT_TRUE(status["last_poll"].isNull());
  EXPECT_TRUE(status["holes"].isArray());
  EXPECT_TRUE(status["elastic_jobs"].isArray());
}

TEST(StatusTable, DurationsReadAsPromised) {
  EXPECT_EQ(cli::format_duration(0), "0s");
  EXPECT_EQ(cli::format_duration(59), "59s");
  EXPECT_EQ(cli::format_duration(192), "3m12s");
  EXPECT_EQ(cli::format_duration(3900), "1h05m");
  EXPECT_EQ(cli::format_duration(2 * 86400 + 3 * 3600), "2d03h");
  EXPECT_EQ(cli::format_duration(-5), "0s");
}

TEST(StatusTable, ShowsHoleEndsAndWhetherCurvesAreAssumed) {
  const World w = small_world();
  const Json::Value status = status_json(w.snapshot, w.holes, w.elastic, {3, 1}, kNow - 1);
  const std::string table = cli::format_status(status, kNow);
  EXPECT_NE(table.find("Holes: 2 idle nodes"), std::string::npos) << table;
  EXPECT_NE(table.find("in 3m12s"), std::string::npos) << table;
  EXPECT_NE(table.find("unknown"), std::string::npos) << table;
  EXPECT_NE(table.find("job 42"), std::string::npos) << table;
  EXPECT_NE(table.find("assumed"), std::string::npos) << table;
  EXPECT_NE(table.find("1-2"), std::string::npos) << table;
  EXPECT_NE(table.find("3 accepted, 1 rejected"), std::string::npos) << table;
}

TEST(StatusTable, SaysWhenSlurmDoesNotAnswer) {
  Json::Value status = status_json({}, {}, {}, {}, kNow - 40);
  EXPECT_EQ(cli::format_status(status, kNow).find("does not answer"), std::string::npos);
  status["slurm_error"] = "Unable to contact slurm controller (connect failure)";
  const std::string table = cli::format_status(status, kNow);
  EXPECT_NE(table.find("Slurm polled 40s ago"), std::string::npos) << table;
  EXPECT_NE(table.find("does not answer"), std::string::npos) << table;
  EXPECT_NE(table.find("connect failure"), std::string::npos) << table;
}

// Why a held job is not admitted: its owner and admins see it, other users do not.
TEST(StatusTable, ShowsWhyHeldJobsWait) {
  core::Snapshot snapshot;
  core::Job held;
  held.id = 51;
  held.user_id = 1000;
  snapshot.jobs.push_back(held);
  const std::vector<std::pair<std::uint32_t, std::string>> waiting{
      {51, "dependency not met (afterok:50(unfulfilled))"}};
  Json::Value status = status_json({}, {}, {}, {}, kNow - 1);
  status["queue"] = queue_json(waiting, snapshot, std::nullopt);
  const std::string table = cli::format_status(status, kNow);
  EXPECT_NE(table.find("queued: job 51 waits: dependency not met (afterok:50(unfulfilled))"),
            std::string::npos)
      << table;
  EXPECT_EQ(queue_json(waiting, snapshot, 1000U).size(), 1U);
  EXPECT_EQ(queue_json(waiting, snapshot, 1001U).size(), 0U);
}

TEST(StatusTable, SaysWhenAnAdminPausedOrDrains) {
  Json::Value status = status_json({}, {}, {}, {}, kNow - 1);
  status["operation"] = "running";
  EXPECT_EQ(cli::format_status(status, kNow).find("by an admin"), std::string::npos);
  status["operation"] = "paused";
  EXPECT_NE(cli::format_status(status, kNow).find("gaptraind is paused by an admin"),
            std::string::npos);
  status["operation"] = "draining";
  EXPECT_NE(cli::format_status(status, kNow).find("satellites given back"), std::string::npos);
}

}  // namespace
}  // namespace gaptrain::daemon::status_test
