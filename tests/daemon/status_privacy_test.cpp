#include "status_privacy.hpp"

#include <gtest/gtest.h>
#include <json/json.h>

#include "status.hpp"

namespace gaptrain::daemon::status_privacy_test {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

core::Job running(std::uint32_t id, uid_t uid, std::vector<std::string> nodes) {
  core::Job job;
  job.id = id;
  job.user_id = uid;
  job.partition = "elastic";
  job.state = core::JobState::running;
  job.nodes = std::move(nodes);
  job.batch_host = job.nodes.front();
  return job;
}

// Alice's elastic job 41 on n1, Bob's elastic job 43 on n2, Bob's regular job 42 waiting for
// n3 (a hole), n4 a hole until reservation "maint", and a drain of Alice's job for Bob's
// waiting job.
struct World {
  core::Snapshot snapshot;
  std::vector<core::Hole> holes;
  core::ElasticJobs elastic;
  Json::Value status;
};

World two_users() {
  World w;
  w.snapshot.taken_at = kNow;
  w.snapshot.nodes = {{"n1", core::NodeState::allocated, kNow - 500},
                      {"n2", core::NodeState::allocated, kNow - 500},
                      {"n3", core::NodeState::planned, kNow - 30},
                      {"n4", core::NodeState::idle, kNow - 30}};
  w.snapshot.jobs = {running(41, kAlice, {"n1"}), running(43, kBob, {"n2"})};
  core::Job waiting;
  waiting.id = 42;
  waiting.user_id = kBob;
  waiting.state = core::JobState::pending;
  waiting.start_time = kNow + 192;
  waiting.sched_nodes = {"n3"};
  w.snapshot.jobs.push_back(waiting);
  w.snapshot.reservations = {{"maint", kNow + 120, kNow + 3600, {"n4"}}};
  w.holes = find_holes(w.snapshot);
  for (const std::uint32_t id : {41U, 43U}) {
    protocol::JobRegistration r;
    r.job_id = id;
    r.min_nodes = 1;
    r.max_nodes = 2;
    EXPECT_FALSE(w.elastic.add(r, find_job(w.snapshot, id), "elastic", kNow));
  }
  w.status = status_json(w.snapshot, w.holes, w.elastic, {}, kNow);
  Json::Value drain(Json::objectValue);
  drain["job_id"] = 41;
  drain["waiting_job"] = 42;
  w.status["actions"]["draining"].append(drain);
  Json::Value retry(Json::objectValue);
  retry["job_id"] = 43;
  w.status["actions"]["retrying"].append(retry);
  return w;
}

std::vector<std::uint32_t> elastic_ids(const Json::Value& status) {
  std::vector<std::uint32_t> ids;
  for (const Json::Value& job : status["elastic_jobs"]) ids.push_back(job["job_id"].asUInt());
  return ids;
}

TEST(StatusPrivacy, WithoutPrivateDataEveryoneSeesEverything) {
  World w = two_users();
  const Json::Value before = w.status;
  apply_private_data(w.status, w.snapshot, w.elastic, core::PrivateData{}, {kAlice, false});
  EXPECT_EQ(w.status, before);
}

TEST(StatusPrivacy, WithPrivateJobsAUserSeesOnlyTheirOwnJobs) {
  World w = two_users();
  ASSERT_EQ(w.status["holes"].size(), 2U);
  ASSERT_EQ(w.status["holes"][0]["next_job"].asUInt(), 42U);
  core::PrivateData jobs_private;
  jobs_private.jobs = true;
  apply_private_data(w.status, w.snapshot, w.elastic, jobs_private, {kAlice, false});
  EXPECT_EQ(elastic_ids(w.status), std::vector<std::uint32_t>{41});
  EXPECT_EQ(w.status["nodes"][0]["jobs"].size(), 1U);  // n1: her job 41
  EXPECT_EQ(w.status["nodes"][1]["jobs"].size(), 0U);  // n2: Bob's job 43, left out
  EXPECT_TRUE(w.status["holes"][0]["next_job"].isNull());
  EXPECT_EQ(w.status["holes"][0]["node"].asString(), "n3");  // node states are not private
  ASSERT_EQ(w.status["actions"]["draining"].size(), 1U);
  EXPECT_TRUE(w.status["actions"]["draining"][0]["waiting_job"].isNull());
  EXPECT_EQ(w.status["actions"]["retrying"].size(), 0U);

  World bob = two_users();
  apply_private_data(bob.status, bob.snapshot, bob.elastic, jobs_private, {kBob, false});
  EXPECT_EQ(elastic_ids(bob.status), std::vector<std::uint32_t>{43});
  EXPECT_EQ(bob.status["holes"][0]["next_job"].asUInt(), 42U);
  EXPECT_EQ(bob.status["actions"]["draining"].size(), 0U);
  EXPECT_EQ(bob.status["actions"]["retrying"].size(), 1U);
}

TEST(StatusPrivacy, RootAndSlurmUserSeeEverything) {
  World w = two_users();
  const Json::Value before = w.status;
  apply_private_data(w.status, w.snapshot, w.elastic, core::PrivateData::all(), {0, true});
  EXPECT_EQ(w.status, before);
}

TEST(StatusPrivacy, PrivateNodesAndReservations) {
  World w = two_users();
  core::PrivateData reservations;
  reservations.reservations = true;
  apply_private_data(w.status, w.snapshot, w.elastic, reservations, {kAlice, false});
  ASSERT_EQ(w.status["holes"].size(), 2U);
  ASSERT_EQ(two_users().status["holes"][1]["reservation"].asString(), "maint");
  EXPECT_TRUE(w.status["holes"][1]["reservation"].isNull());
  EXPECT_EQ(elastic_ids(w.status), (std::vector<std::uint32_t>{41, 43}));

  World nodes = two_users();
  core::PrivateData nodes_private;
  nodes_private.nodes = true;
  apply_private_data(nodes.status, nodes.snapshot, nodes.elastic, nodes_private, {kAlice, false});
  EXPECT_EQ(nodes.status["nodes"].size(), 0U);
  EXPECT_EQ(nodes.status["holes"].size(), 0U);
}

// Before slurmctld first answered, PrivateData is not known: everything private.
TEST(StatusPrivacy, UnknownPrivateDataHidesOtherUsersJobs) {
  World w = two_users();
  apply_private_data(w.status, w.snapshot, w.elastic, core::PrivateData::all(), {kBob, false});
  EXPECT_EQ(elastic_ids(w.status), std::vector<std::uint32_t>{43});
  EXPECT_EQ(w.status["nodes"].size(), 0U);
}

}  // namespace
}  // namespace gaptrain::daemon::status_privacy_test
