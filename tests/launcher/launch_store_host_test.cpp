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

TEST(LaunchStoreHost, TheCommandIsGaptrainPythonsOrPython3) {
  EXPECT_EQ(StoreHost::command(nullptr),
            (std::vector<std::string>{"python3", "-m", "gaptrain.store_host"}));
  EXPECT_EQ(StoreHost::command(""), StoreHost::command(nullptr));
  EXPECT_EQ(StoreHost::command("/opt/venv/bin/python").front(), "/opt/venv/bin/python");
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
  EXPECT_TRUE(dying.running());
}

TEST(LaunchStoreHost, AMissingInterpreterSaysWhatToSet) {
  StoreHost host({"/nonexistent/python3", "-m", "gaptrain.store_host"}, environment_with({}));
  const std::optional<std::string> said = host.keep_running(StoreHost::Clock::now());
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("GAPTRAIN_PYTHON"), std::string::npos) << *said;
  EXPECT_FALSE(host.running());
}

}  // namespace
}  // namespace gaptrain::launch::launch_store_host_test
