#include "auth.hpp"

#include <gtest/gtest.h>

namespace gaptrain::daemon {
namespace {

constexpr uid_t kRoot = 0;
constexpr uid_t kSlurm = 64030;
constexpr uid_t kAlice = 1001;
constexpr uid_t kBob = 1002;

TEST(Auth, NodeEventsOnlyFromRootOrSlurmUser) {
  for (const RequestKind kind : {RequestKind::node_freed, RequestKind::node_taken}) {
    EXPECT_FALSE(authorize(kind, kRoot, kSlurm, std::nullopt));
    EXPECT_FALSE(authorize(kind, kSlurm, kSlurm, std::nullopt));
    const auto refused = authorize(kind, kAlice, kSlurm, std::nullopt);
    ASSERT_TRUE(refused);
    EXPECT_NE(refused->find("uid 1001"), std::string::npos) << *refused;
    EXPECT_NE(refused->find("SlurmUser"), std::string::npos) << *refused;
  }
}

TEST(Auth, RegistrationOnlyFromRootOrTheJobsOwner) {
  EXPECT_FALSE(authorize(RequestKind::job_registration, kAlice, kSlurm, kAlice));
  EXPECT_FALSE(authorize(RequestKind::job_registration, kRoot, kSlurm, kAlice));
  const auto other = authorize(RequestKind::job_registration, kBob, kSlurm, kAlice);
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("owner (uid 1001)"), std::string::npos) << *other;
  // SlurmUser is not a job owner's stand-in.
  EXPECT_TRUE(authorize(RequestKind::job_registration, kSlurm, kSlurm, kAlice));
}

TEST(Auth, RegistrationOfAJobSlurmDoesNotKnow) {
  EXPECT_TRUE(authorize(RequestKind::job_registration, kAlice, kSlurm, std::nullopt));
  // Root passes authorization; validation then refuses the unknown job.
  EXPECT_FALSE(authorize(RequestKind::job_registration, kRoot, kSlurm, std::nullopt));
}

TEST(Auth, LauncherReportsOnlyFromRootOrTheJobsOwner) {
  EXPECT_FALSE(authorize(RequestKind::launcher_report, kAlice, kSlurm, kAlice));
  EXPECT_FALSE(authorize(RequestKind::launcher_report, kRoot, kSlurm, kAlice));
  const auto other = authorize(RequestKind::launcher_report, kBob, kSlurm, kAlice);
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("owner (uid 1001)"), std::string::npos) << *other;
  EXPECT_NE(other->find("report for it, not uid 1002"), std::string::npos) << *other;
  // Neither SlurmUser nor anyone but root for a job nobody knows.
  EXPECT_TRUE(authorize(RequestKind::launcher_report, kSlurm, kSlurm, kAlice));
  EXPECT_TRUE(authorize(RequestKind::launcher_report, kAlice, kSlurm, std::nullopt));
  EXPECT_FALSE(authorize(RequestKind::launcher_report, kRoot, kSlurm, std::nullopt));
}

TEST(Auth, StatusFromAnyone) {
  for (const uid_t uid : {kRoot, kSlurm, kAlice, kBob}) {
    EXPECT_FALSE(authorize(RequestKind::status, uid, kSlurm, std::nullopt));
  }
}

// What a `job` request may see is PrivateData's (JobHistory.PrivateData...), not authorize's.
TEST(Auth, JobViewsFromAnyone) {
  for (const uid_t uid : {kRoot, kSlurm, kAlice, kBob}) {
    EXPECT_FALSE(authorize(RequestKind::job, uid, kSlurm, kAlice));
  }
}

// Pause, resume and drain change what gaptraind does for every job: admins only.
TEST(Auth, OperationsFromRootAndSlurmUserOnly) {
  EXPECT_FALSE(authorize(RequestKind::operation, kRoot, kSlurm, std::nullopt));
  EXPECT_FALSE(authorize(RequestKind::operation, kSlurm, kSlurm, std::nullopt));
  const auto refused = authorize(RequestKind::operation, kAlice, kSlurm, std::nullopt);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("root or SlurmUser"), std::string::npos) << *refused;
}

}  // namespace
}  // namespace gaptrain::daemon
