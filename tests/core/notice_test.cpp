// The notices' rules (core/notice.hpp) on their own: the window a job gets, a drain's deadline
// over a planned start, steady times, and what is journalled when a node goes.
#include "core/notice.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/settings.hpp"

namespace gaptrain::core::notice_test {
namespace {

constexpr double kWall = 1'700'000'000.0;

ElasticJobs one_job(const std::vector<std::string>& nodes, std::optional<double> notice_s) {
  Job job;
  job.id = 7;
  job.state = JobState::running;
  job.partition = "elastic";
  job.nodes = nodes;
  job.batch_host = nodes.front();
  protocol::JobRegistration registration;
  registration.job_id = 7;
  registration.max_nodes = static_cast<int>(nodes.size());
  registration.notice_s = notice_s;
  ElasticJobs jobs;
  EXPECT_FALSE(jobs.add(registration, &job, "elastic", 0));
  return jobs;
}

bool has(const Notes& notes, const std::string& message) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const Note& note) { return note.message == message; });
}

TEST(Notice, TheWindowIsWhatTheJobAskedCappedByTheAdmin) {
  ElasticJob job;
  EXPECT_EQ(notice_window_s(job, 600.0), kDefaultNoticeS);
  EXPECT_EQ(notice_window_s(job, 10.0), 10.0);
  job.given.notice_s = 900.0;
  EXPECT_EQ(notice_window_s(job, 600.0), 600.0);
  job.given.notice_s = 0.0;
  EXPECT_EQ(notice_window_s(job, 600.0), 0.0);
  EXPECT_EQ(notice_window_s(job, 0.0), 0.0);
}

TEST(Notice, ADrainsDeadlineComesBeforeAPlannedStartAndIsToldWhateverTheWindow) {
  const ElasticJobs jobs = one_job({"n1", "n2", "n3"}, 0.0);  // asked for no planned notice
  const Notices due =
      due_notices(jobs, {{"n2", kWall + 1.0}},
                  {{"n2", kWall + 20}, {"n3", kWall + 20}, {"x9", kWall}}, kWall, 600.0);
  ASSERT_TRUE(due.contains(7));
  EXPECT_EQ(due.at(7).size(), 1U) << "n3's plan is beyond a window of 0; x9 is not the job's";
  EXPECT_EQ(due.at(7).at("n2").at, kWall + 1.0);
  // A start backfill planned in the past (Slurm starts it at its next pass) is now.
  const Notices late =
      due_notices(one_job({"n1", "n2"}, std::nullopt), {}, {{"n2", 1000}}, kWall, 600.0);
  EXPECT_EQ(late.at(7).at("n2").at, kWall);
  EXPECT_TRUE(due_notices(jobs, {{"n2", kWall + 1.0}}, {}, kWall, 0.0).empty()) << "notices off";
}

TEST(Notice, ATimeThatMovesLessThanASecondIsTheSameNotice) {
  const Notices before{{7, {{"n2", {kWall + 1.0, "drain requested"}}}}};
  const Notices jittered{{7, {{"n2", {kWall + 1.6, "drain requested"}}}}};
  const Notices steady = steady_notices(before, jittered);
  EXPECT_EQ(steady.at(7).at("n2").at, kWall + 1.0);
  const ElasticJobs jobs = one_job({"n1", "n2"}, std::nullopt);
  EXPECT_TRUE(notice_changes(before, steady, jobs, kWall).empty());
  const Notices moved{{7, {{"n2", {kWall + 30.0, "a regular job is planned there"}}}}};
  EXPECT_EQ(steady_notices(before, moved).at(7).at("n2").at, kWall + 30.0);
  EXPECT_TRUE(has(notice_changes(before, moved, jobs, kWall), "notice given"));
}

TEST(Notice, ANodeThatLeftItsJobIsNotWithdrawnOneStillHeldIs) {
  const Notices before{{7, {{"n2", {kWall + 1.0, "drain requested"}}}}};
  EXPECT_FALSE(
      has(notice_changes(before, {}, one_job({"n1"}, std::nullopt), kWall), "notice withdrawn"))
      << "n2 was taken: the notice came true";
  EXPECT_TRUE(has(notice_changes(before, {}, one_job({"n1", "n2"}, std::nullopt), kWall),
                  "notice withdrawn"));
  EXPECT_TRUE(notice_changes(before, {}, ElasticJobs{}, kWall).empty()) << "the job ended";
}

}  // namespace
}  // namespace gaptrain::core::notice_test
