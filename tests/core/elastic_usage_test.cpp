#include "core/elastic_usage.hpp"

#include <gtest/gtest.h>

namespace gaptrain::core::elastic_usage_test {
namespace {

Job running_job(std::uint32_t id, const std::string& user, const std::string& account,
                std::vector<std::string> nodes) {
  Job job;
  job.id = id;
  job.user = user;
  job.account = account;
  job.partition = "elastic";
  job.state = JobState::running;
  job.batch_host = nodes.front();
  job.nodes = std::move(nodes);
  return job;
}

protocol::JobRegistration registration(const Job& job) {
  protocol::JobRegistration r;
  r.job_id = job.id;
  r.user = job.user;
  r.batch_host = job.batch_host;
  r.max_nodes = 8;
  return r;
}

TEST(ElasticUsage, NodesAreCountedByPartitionUserAndAccount) {
  Snapshot snapshot;
  snapshot.jobs = {running_job(5, "alice", "ml", {"n1", "n2"}),
                   running_job(6, "bob", "vision", {"n3", "n4", "n5"}),
                   running_job(7, "alice", "ml", {"n6"})};
  ElasticJobs elastic;
  for (const Job& job : snapshot.jobs) {
    ASSERT_FALSE(elastic.add(registration(job), &job, "elastic", 0));
  }
  const NodesByOwner held = elastic_nodes_by_owner(elastic, snapshot, "elastic");
  EXPECT_EQ(held,
            (NodesByOwner{{{"elastic", "alice", "ml"}, 3}, {{"elastic", "bob", "vision"}, 3}}));

  // A managed job Slurm no longer lists is still charged, to the elastic partition and no account.
  snapshot.jobs.erase(snapshot.jobs.begin());
  EXPECT_EQ(elastic_nodes_by_owner(elastic, snapshot, "elastic").at({"elastic", "alice", ""}), 2U);
}

// A fake clock: each update says its time. Two jobs of different users, over two updates.
TEST(ElasticUsage, EachIntervalIsChargedAtTheHoldingAtItsStart) {
  const UsageOwner alice{"elastic", "alice", "ml"};
  const UsageOwner bob{"elastic", "bob", "vision"};
  NodeSecondsMeter meter;
  EXPECT_TRUE(meter.advance(100.0, {{alice, 2}, {bob, 3}}).empty()) << "the first call starts it";
  // 60 s at 2 and 3 nodes; bob grew to 5 at this update.
  EXPECT_EQ(meter.advance(160.0, {{alice, 2}, {bob, 5}}),
            (NodeSecondsByOwner{{alice, 120.0}, {bob, 180.0}}));
  // 30 s at 2 and 5 nodes; alice's job ended at this update.
  EXPECT_EQ(meter.advance(190.0, {{bob, 5}}), (NodeSecondsByOwner{{alice, 60.0}, {bob, 150.0}}));
  EXPECT_EQ(meter.advance(200.0, {}), (NodeSecondsByOwner{{bob, 50.0}}));
  EXPECT_TRUE(meter.advance(260.0, {}).empty());
}

TEST(ElasticUsage, AClockThatWentBackChargesNothing) {
  const UsageOwner alice{"elastic", "alice", "ml"};
  NodeSecondsMeter meter;
  meter.advance(100.0, {{alice, 2}});
  EXPECT_TRUE(meter.advance(90.0, {{alice, 2}}).empty());
  EXPECT_EQ(meter.advance(110.0, {{alice, 2}}), (NodeSecondsByOwner{{alice, 20.0}}));
}

}  // namespace
}  // namespace gaptrain::core::elastic_usage_test
