#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "gaptrain/munge_envelope.hpp"
#include "loopback_server.hpp"
#include "munge_fixture.hpp"
#include "notify.hpp"

namespace gaptrain::plugin::plugin_notify_test {
namespace {

using std::chrono::milliseconds;

TEST(PluginNotifyTest, InterpretsReplies) {
  EXPECT_TRUE(interpret_reply(R"({"ok":true})").ok);
  EXPECT_TRUE(interpret_reply(R"({"ok":true,"status":{"holes":[]}})").ok);
  const Outcome refused = interpret_reply(R"({"ok":false,"error":"not your job"})");
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.message, "controller refused: not your job");
  EXPECT_FALSE(interpret_reply("garbage").ok);
  EXPECT_FALSE(interpret_reply(R"({"ok":"yes"})").ok);
  EXPECT_FALSE(interpret_reply("").ok);
}

TEST(PluginNotifyTest, WithoutControllerNothingIsSent) {
  const Outcome outcome = notify(PluginConfig{}, protocol::NodeFreed{1, "n1"});
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.message, "no controller configured");
}

TEST(PluginNotifyTest, MungeFailureFailsOpen) {
  PluginConfig config;
  config.controller = wire::Endpoint{"127.0.0.1", test::unused_port()};
  config.munge_socket = "/nonexistent/munge.socket";
  const Outcome outcome = notify(config, protocol::NodeFreed{1, "n1"});
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(outcome.message.starts_with("munge: ")) << outcome.message;
}

// A munged that hangs: its socket accepts connections (the kernel's backlog) and nobody ever
// answers. libmunge alone would retry for 10-15 s; the plugin gives up at its budget and fails
// open, and says why. The budget is 2 s here, not the default 50 ms (the same code path), so that
// the sealing child gets to connect even on a loaded machine: the test then also shows that it was
// the hung munged that was waited for.
TEST(PluginNotifyTest, HungMungedFailsOpenAtTheBudget) {
  char dir_template[] = "/tmp/gaptrain-hung-munged-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string socket_path = std::string(dir_template) + "/munge.socket";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);

  test::LoopbackServer controller(
      [](const std::string&) -> std::optional<std::string> { return "{\"ok\":true}\n"; });
  PluginConfig config;
  config.controller = wire::Endpoint{"127.0.0.1", controller.port()};
  config.munge_socket = socket_path;
  config.timeout = milliseconds(2000);
  const Outcome outcome = notify(config, protocol::NodeTaken{7, "n1", false});
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.message, "munge: no credential within the message budget (munged at " +
                                 socket_path + " does not answer)");
  EXPECT_EQ(controller.connections(), 0);  // nothing unsealed was sent
  // libmunge did connect: it was the hung munged that was waited for, not a missing socket.
  pollfd pending{listener, POLLIN, 0};
  EXPECT_EQ(::poll(&pending, 1, 0), 1);
  ::close(listener);
  ::unlink(socket_path.c_str());
  ::rmdir(dir_template);
}

class PluginNotifyMungeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = test::fixture_munge_socket();
    if (socket_.empty()) GTEST_SKIP() << "no private munged (needs root and munge installed)";
  }
  std::string socket_;
};

// The whole path the plugin takes: a credential line that the daemon side can open and decode.
TEST_F(PluginNotifyMungeTest, DeliversASealedRequest) {
  std::string payload;
  uid_t sender = 12345;
  test::LoopbackServer server([&](const std::string& line) -> std::optional<std::string> {
    const munge::Opened opened = munge::open(line, socket_);
    payload = opened.payload;
    sender = opened.uid;
    return std::string("{\"ok\":true}\n");
  });
  PluginConfig config;
  config.controller = wire::Endpoint{"127.0.0.1", server.port()};
  config.munge_socket = socket_;
  config.timeout = milliseconds(2000);
  const Outcome outcome = notify(config, protocol::NodeTaken{42, "n2", true});
  EXPECT_TRUE(outcome.ok) << outcome.message;
  EXPECT_EQ(sender, ::getuid());
  const auto taken = std::get<protocol::NodeTaken>(protocol::decode(payload));
  EXPECT_EQ(taken.job_id, 42U);
  EXPECT_EQ(taken.node, "n2");
  EXPECT_TRUE(taken.elastic);
}

TEST_F(PluginNotifyMungeTest, SlowControllerFailsOpenAtTheBudget) {
  test::LoopbackServer server(
      [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
  PluginConfig config;
  config.controller = wire::Endpoint{"127.0.0.1", server.port()};
  config.munge_socket = socket_;
  // The controller never answers: only the budget ends the wait. (2 s, not the default 50 ms:
  // sealing alone may take longer on a loaded machine, and then the seal is what runs out.)
  config.timeout = milliseconds(2000);
  const Outcome outcome = notify(config, protocol::NodeFreed{7, "n1"});
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.message.find("timed out"), std::string::npos) << outcome.message;
}

TEST_F(PluginNotifyMungeTest, ControllerDownFailsOpenWithoutWaitingOutTheBudget) {
  PluginConfig config;
  config.controller = wire::Endpoint{"127.0.0.1", test::unused_port()};
  config.munge_socket = socket_;
  // "refused", not "timed out": the plugin did not wait out its budget (a long one, so that the
  // seal never runs it out on a loaded machine).
  config.timeout = milliseconds(60000);
  const Outcome outcome = notify(config, protocol::NodeFreed{7, "n1"});
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.message.find("refused"), std::string::npos) << outcome.message;
}

}  // namespace
}  // namespace gaptrain::plugin::plugin_notify_test
