// The home mode's store host (launcher/store_host.hpp): started when the job is at home, started
// again when it ends, stopped with the launcher. Real processes stand in for the Python store.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "launcher/process.hpp"
#include "launcher/store_host.hpp"

namespace gaptrain::launch::launch_store_host_test {
namespace {

using std::chrono::seconds;

TEST(LaunchStoreHost, TheCommandIsGaptrainPythonsElseTheTrainingsPythonElsePython3) {
  const std::vector<std::string> script = {"./train.sh", "--epochs", "3"};
  EXPECT_EQ(StoreHost::command(nullptr, script),
            (std::vector<std::string>{"python3", "-m", "gaptrain.store_host"}));
  EXPECT_EQ(StoreHost::command("", script), StoreHost::command(nullptr, script));
  EXPECT_EQ(StoreHost::command(nullptr, {}), StoreHost::command(nullptr, script));
  EXPECT_EQ(StoreHost::command("/opt/venv/bin/python", script).front(), "/opt/venv/bin/python");
  // The training's own interpreter, where it names one.
  for (const std::string python :
       {"/usr/bin/python3", "python", "python3.11", "/opt/v/bin/python3"})
    EXPECT_EQ(StoreHost::command(nullptr, {python, "train.py"}).front(), python);
  for (const std::string other :
       {"/usr/bin/python3-config", "ipython", "/opt/python3/bin/torchrun"})
    EXPECT_EQ(StoreHost::command(nullptr, {other, "train.py"}).front(), "python3") << other;
  // GAPTRAIN_PYTHON wins.
  EXPECT_EQ(StoreHost::command("/opt/a/python", {"/usr/bin/python3", "train.py"}).front(),
            "/opt/a/python");
}

TEST(LaunchStoreHost, RunsUntilStoppedAndIsStartedAgainWhenItEnds) {
  StoreHost host({"sleep", "30"}, environment_with({}));
  const auto now = StoreHost::Clock::now();
  const std::optional<std::string> first = host.keep_running(now);
  ASSERT_TRUE(first);
  EXPECT_NE(first->find("serving the job's store"), std::string::npos) << *first;
  EXPECT_TRUE(host.running());
  EXPECT_FALSE(host.keep_running(now));  // running: nothing to do or say
  host.stop();
  EXPECT_FALSE(host.running());

  StoreHost dying({"true"}, environment_with({}));
  ASSERT_TRUE(dying.keep_running(now));
  std::optional<std::string> again;
  for (int i = 0; i < 100 && !again; ++i) {  // `true` ends at once; seen within the next look
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    again = dying.keep_running(now + seconds(2 + i));
  }
  ASSERT_TRUE(again);
  EXPECT_NE(again->find("trying again"), std::string::npos) << *again;  // it ran no while
  EXPECT_FALSE(dying.running());  // not before its wait: 2 s after its first quick end
  dying.keep_running(now + seconds(200));
  EXPECT_TRUE(dying.running());
}

// Waits for `host`'s process to end and returns what keep_running says at `then`.
std::optional<std::string> seen_ending(StoreHost& host, StoreHost::Clock::time_point then) {
  std::optional<std::string> said;
  for (int i = 0; i < 250 && host.running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    said = host.keep_running(then);
  }
  return said;
}

TEST(LaunchStoreHost, OneThatEndsAtOnceFiveTimesInARowIsGivenUpWithWhatToSet) {
  // `false` stands in for a Python without torch: it ends at once, every time.
  StoreHost host({"false"}, environment_with({}));
  auto now = StoreHost::Clock::now();
  ASSERT_TRUE(host.keep_running(now));
  std::optional<std::string> last;
  for (int end = 1; end <= 5; ++end) {
    ASSERT_FALSE(host.gave_up()) << "after " << end - 1 << " ends";
    now += seconds(1);
    last = seen_ending(host, now);
    ASSERT_TRUE(last) << "end " << end;
    if (end < 5) {
      EXPECT_NE(last->find("trying again"), std::string::npos) << *last;
      EXPECT_FALSE(host.running()) << "started again before its wait of 2, 4, 8 s";
      now += seconds(31);
      host.keep_running(now);  // ... and after it (a start again says nothing)
      EXPECT_TRUE(host.running());
    }
  }
  EXPECT_TRUE(host.gave_up());
  EXPECT_NE(last->find("5 times in a row"), std::string::npos) << *last;
  EXPECT_NE(last->find("GAPTRAIN_PYTHON"), std::string::npos) << *last;
  EXPECT_NE(last->find("Ending the job"), std::string::npos) << *last;
  EXPECT_FALSE(host.keep_running(now + seconds(100)));  // given up: never started again
  EXPECT_FALSE(host.running());
}

TEST(LaunchStoreHost, OneThatRanAWhileBetweenItsEndsIsNeverGivenUp) {
  StoreHost host({"false"}, environment_with({}));
  auto now = StoreHost::Clock::now();
  ASSERT_TRUE(host.keep_running(now));
  for (int end = 1; end <= 8; ++end) {
    now += seconds(10);  // each time it served 10 s before it ended
    const std::optional<std::string> said = seen_ending(host, now);
    ASSERT_TRUE(said);
    EXPECT_NE(said->find("starting it again"), std::string::npos) << *said;
    EXPECT_FALSE(host.gave_up());
    now += seconds(1);
    host.keep_running(now);
    ASSERT_TRUE(host.running()) << "not started again a second after its end " << end;
  }
}

TEST(LaunchStoreHost, AMissingInterpreterSaysWhatToSet) {
  StoreHost host({"/nonexistent/python3", "-m", "gaptrain.store_host"}, environment_with({}));
  const std::optional<std::string> said = host.keep_running(StoreHost::Clock::now());
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("GAPTRAIN_PYTHON"), std::string::npos) << *said;
  EXPECT_FALSE(host.running());
  auto now = StoreHost::Clock::now();
  for (int i = 0; i < 5 && !host.gave_up(); ++i) host.keep_running(now += seconds(31));
  EXPECT_TRUE(host.gave_up()) << "five starts that failed give it up too";
}

}  // namespace
}  // namespace gaptrain::launch::launch_store_host_test
