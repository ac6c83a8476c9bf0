#include <gtest/gtest.h>

#include <string>

#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"
#include "launcher/controller_link.hpp"
#include "launcher/poll_backoff.hpp"
#include "launcher/registration_retry.hpp"
#include "loopback_server.hpp"
#include "munge_fixture.hpp"

namespace gaptrain::launch::launch_registration_test {
namespace {

using Clock = RegistrationRetry::Clock;
using std::chrono::seconds;

TEST(LaunchRegistration, RefusalsReRegisterWithABoundedBackoff) {
  RegistrationRetry retry;
  const Clock::time_point t0{};
  EXPECT_TRUE(retry.due(t0 + seconds(100)));  // the first refusal: at once
  retry.sent(t0 + seconds(100));
  EXPECT_FALSE(retry.due(t0 + seconds(100)));
  EXPECT_TRUE(retry.due(t0 + seconds(101)));  // then 1 s, 2 s, 4 s...
  retry.sent(t0 + seconds(101));
  EXPECT_FALSE(retry.due(t0 + seconds(102)));
  EXPECT_TRUE(retry.due(t0 + seconds(103)));
  // However long the refusals go on: never more often than every 30 s.
  Clock::time_point at = t0 + seconds(103);
  int sent = 0;
  for (int s = 0; s < 3600; ++s) {
    at += seconds(1);
    if (retry.due(at)) {
      retry.sent(at);
      ++sent;
    }
  }
  EXPECT_LE(sent, 3600 / 30 + 5);
  EXPECT_GE(sent, 3600 / 30);
  retry.answered();  // registered: the next refusal re-registers at once
  EXPECT_TRUE(retry.due(at));
}

TEST(LaunchRegistration, TheRegistrationComesFromTheEnvironmentForThisJobOnly) {
  protocol::JobRegistration r;
  r.job_id = 42;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 4;
  const std::string text = protocol::encode(r);
  std::string why;
  const auto read = registration_from_env(text, 42, why);
  ASSERT_TRUE(read) << why;
  EXPECT_EQ(read->max_nodes, 4);
  EXPECT_FALSE(registration_from_env(text, 43, why));
  EXPECT_EQ(why, "GAPTRAIN_REGISTRATION is not the registration of job 43");
  EXPECT_FALSE(registration_from_env("", 42, why));
  EXPECT_TRUE(why.empty());
  EXPECT_FALSE(registration_from_env("{", 42, why));
  EXPECT_TRUE(why.starts_with("GAPTRAIN_REGISTRATION: ")) << why;
}

TEST(LaunchRegistration, RegisterJobReportsTheControllersAnswer) {
  const std::string socket = test::fixture_munge_socket();
  if (socket.empty()) GTEST_SKIP() << "no private munged (needs root and munge installed)";
  std::string received;
  test::LoopbackServer refusing([&](const std::string& line) -> std::optional<std::string> {
    received = munge::open(line, socket).payload;
    return std::string(R"({"ok":false,"error":"job 42 runs in partition regular"})") + "\n";
  });
  test::LoopbackServer accepting(
      [](const std::string&) -> std::optional<std::string> { return "{\"ok\":true}\n"; });
  protocol::JobRegistration r;
  r.job_id = 42;
  r.user = "alice";
  r.batch_host = "n1";
  r.min_nodes = 1;
  r.max_nodes = 2;
  const auto refused = register_job(wire::Endpoint{"127.0.0.1", refusing.port()}, socket, r,
                                    std::chrono::seconds(5));
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused, "job 42 runs in partition regular");
  EXPECT_EQ(std::get<protocol::JobRegistration>(protocol::decode(received)).max_nodes, 2);
  EXPECT_FALSE(register_job(wire::Endpoint{"127.0.0.1", accepting.port()}, socket, r,
                            std::chrono::seconds(5)));
  const auto unreachable = register_job(wire::Endpoint{"127.0.0.1", test::unused_port()}, socket, r,
                                        std::chrono::seconds(5));
  ASSERT_TRUE(unreachable);
}

TEST(LaunchRegistration, AnUnansweredControllerIsAskedLessOftenButAlwaysAgain) {
  using std::chrono::milliseconds;
  EXPECT_EQ(next_report_in(milliseconds(500), 0), milliseconds(500));
  EXPECT_EQ(next_report_in(milliseconds(500), 1), milliseconds(1000));
  EXPECT_EQ(next_report_in(milliseconds(500), 2), milliseconds(2000));
  EXPECT_EQ(next_report_in(milliseconds(500), 50), kMostBetweenReports);
  EXPECT_EQ(next_report_in(milliseconds(500), 1000000), kMostBetweenReports);
  // A poll period longer than the cap is kept as it is.
  EXPECT_EQ(next_report_in(milliseconds(20000), 3), milliseconds(20000));
}

// The end-of-job summary counts resizes as `gaptrain job` lists them: a drain for a regular job
// is a reclaim there, and was a "shrink" in the summary.
TEST(LaunchSummary, ResizesAreCountedInGaptrainJobsWords) {
  const auto totals = job_totals_from_answer(
      R"({"ok":true,"job":{"node_hours":0.5,"resize_lost_s":18.6,"resizes":[)"
      R"({"kind":"admit"},{"kind":"grow"},{"kind":"reclaim"},{"kind":"grow"},{"kind":"reclaim"}]}})");
  ASSERT_TRUE(totals);
  EXPECT_DOUBLE_EQ(totals->resize_lost_s, 18.6);
  EXPECT_EQ(resize_counts_text(*totals), "2 grow(s), 2 reclaim(s)");
  const auto none =
      job_totals_from_answer(R"({"ok":true,"job":{"node_hours":0,"resize_lost_s":0}})");
  ASSERT_TRUE(none);
  EXPECT_EQ(resize_counts_text(*none), "no resize");
  EXPECT_FALSE(job_totals_from_answer(R"({"ok":false,"error":"x"})"));
  EXPECT_FALSE(job_totals_from_answer("not json"));
}

}  // namespace
}  // namespace gaptrain::launch::launch_registration_test
