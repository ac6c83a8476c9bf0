#include "auth.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon::auth_test {
namespace {

constexpr uid_t kRoot = 0;
constexpr uid_t kSlurm = 64030;
constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

TEST(Auth, NodeEventsOnlyFromRootOrSlurmUser) {
  for (const protocol::Request& event :
       {protocol::Request(protocol::NodeFreed{}), protocol::Request(protocol::NodeTaken{})}) {
    EXPECT_FALSE(authorize(event, kRoot, kSlurm, std::nullopt));
    EXPECT_FALSE(authorize(event, kSlurm, kSlurm, std::nullopt));
    const auto refused = authorize(event, kAlice, kSlurm, std::nullopt);
    ASSERT_TRUE(refused);
    EXPECT_NE(refused->find("uid 1001"), std::string::npos) << *refused;
    EXPECT_NE(refused->find("SlurmUser"), std::string::npos) << *refused;
  }
}

TEST(Auth, RegistrationOnlyFromRootOrTheJobsOwner) {
  EXPECT_FALSE(authorize(protocol::JobRegistration{}, kAlice, kSlurm, kAlice));
  EXPECT_FALSE(authorize(protocol::JobRegistration{}, kRoot, kSlurm, kAlice));
  const auto other = authorize(protocol::JobRegistration{}, kBob, kSlurm, kAlice);
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("owner (uid 1001)"), std::string::npos) << *other;
  // SlurmUser is not a job owner's stand-in.
  EXPECT_TRUE(authorize(protocol::JobRegistration{}, kSlurm, kSlurm, kAlice));
}

TEST(Auth, RegistrationOfAJobSlurmDoesNotKnow) {
  EXPECT_TRUE(authorize(protocol::JobRegistration{}, kAlice, kSlurm, std::nullopt));
  // Root passes authorization; validation then refuses the unknown job.
  EXPECT_FALSE(authorize(protocol::JobRegistration{}, kRoot, kSlurm, std::nullopt));
}

TEST(Auth, LauncherReportsOnlyFromRootOrTheJobsOwner) {
  EXPECT_FALSE(authorize(protocol::LauncherReport{}, kAlice, kSlurm, kAlice));
  EXPECT_FALSE(authorize(protocol::LauncherReport{}, kRoot, kSlurm, kAlice));
  const auto other = authorize(protocol::LauncherReport{}, kBob, kSlurm, kAlice);
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("owner (uid 1001)"), std::string::npos) << *other;
  EXPECT_NE(other->find("report for it, not uid 1002"), std::string::npos) << *other;
  // Neither SlurmUser nor anyone but root for a job nobody knows.
  EXPECT_TRUE(authorize(protocol::LauncherReport{}, kSlurm, kSlurm, kAlice));
  EXPECT_TRUE(authorize(protocol::LauncherReport{}, kAlice, kSlurm, std::nullopt));
  EXPECT_FALSE(authorize(protocol::LauncherReport{}, kRoot, kSlurm, std::nullopt));
}

TEST(Auth, StatusFromAnyone) {
  for (const uid_t uid : {kRoot, kSlurm, kAlice, kBob}) {
    EXPECT_FALSE(authorize(protocol::StatusRequest{}, uid, kSlurm, std::nullopt));
  }
}

// What a `job` request may see is PrivateData's (JobHistory.PrivateData...), not authorize's.
TEST(Auth, JobViewsFromAnyone) {
  for (const uid_t uid : {kRoot, kSlurm, kAlice, kBob}) {
    EXPECT_FALSE(authorize(protocol::JobRequest{}, uid, kSlurm, kAlice));
  }
}

// Pause, resume and drain change what gaptraind does for every job: admins only.
TEST(Auth, OperationsFromRootAndSlurmUserOnly) {
  EXPECT_FALSE(authorize(protocol::OperationRequest{}, kRoot, kSlurm, std::nullopt));
  EXPECT_FALSE(authorize(protocol::OperationRequest{}, kSlurm, kSlurm, std::nullopt));
  const auto refused = authorize(protocol::OperationRequest{}, kAlice, kSlurm, std::nullopt);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("root or SlurmUser"), std::string::npos) << *refused;
}

}  // namespace
}  // namespace gaptrain::daemon::auth_test
