// The daemon's transport refuses what would tie it up: a request line over the length cap and a
// client that sends no complete line before the read deadline. A real sd-event loop on
// loopback; the client runs in a thread. Nothing here asserts how long anything took.
#include "line_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace gaptrain::daemon {
namespace {

// A loopback port free a moment ago (bound to 0, read back, released).
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Connects, sends `request` (then, if `linger`, keeps the connection open without more), and
// returns everything the server sent until it closed.
std::string exchange(std::uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "(connect failed)";
  }
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close on us once the cap is passed
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return reply;
}

class LineServerTest : public ::testing::Test {
 protected:
  LineServerTest() { EXPECT_GE(sd_event_new(&event_), 0); }
  ~LineServerTest() override { sd_event_unref(event_); }

  // Serves with `limits` while `client` runs in a thread; returns its result.
  std::string serve(LineServer::Limits limits, const std::string& request,
                    LineServer::AcceptFilter filter = {}) {
    LineServer server(
        event_,
        [](std::string_view line, const std::string&) { return "echo " + std::string(line); },
        [this](const std::string&, const std::string& reason) { refusals_.push_back(reason); },
        limits);
    if (filter) server.set_accept_filter(std::move(filter));
    const std::uint16_t port = free_port();
    server.listen(ListenAddress{"127.0.0.1", port});
    std::atomic<bool> done{false};
    std::string reply;
    std::thread client([&] {
      reply = exchange(port, request);
      done = true;
    });
    // A bound on the whole exchange so that a broken server fails the test, never hangs it.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done && std::chrono::steady_clock::now() < give_up) {
      sd_event_run(event_, 50'000);
    }
    client.join();
    return reply;
  }

  sd_event* event_ = nullptr;
  std::vector<std::string> refusals_;
};

TEST_F(LineServerTest, ALineIsAnswered) {
  EXPECT_EQ(serve({}, "hello\n"), "echo hello\n");
  EXPECT_TRUE(refusals_.empty());
}

TEST_F(LineServerTest, APeerTheFilterRefusesIsClosedUnanswered) {
  std::string seen;
  const std::string reply = serve({}, "hello\n", [&](const std::string& peer) {
    seen = peer;
    return false;
  });
  EXPECT_EQ(reply, "");
  EXPECT_EQ(seen.rfind("127.0.0.1:", 0), 0U) << seen;
}

TEST_F(LineServerTest, ALineOverTheCapIsRefusedUnread) {
  LineServer::Limits limits;
  limits.max_line = 1024;
  const std::string reply = serve(limits, std::string(4096, 'x') + "\n");
  EXPECT_NE(reply.find(R"("ok":false)"), std::string::npos) << reply;
  EXPECT_NE(reply.find("longer than 1024 bytes"), std::string::npos) << reply;
  ASSERT_EQ(refusals_.size(), 1U);
  EXPECT_EQ(reply.find("echo"), std::string::npos) << "the handler saw it: " << reply;
}

TEST_F(LineServerTest, AClientThatNeverEndsItsLineIsCutOff) {
  LineServer::Limits limits;
  limits.read_deadline = std::chrono::milliseconds(100);
  // Half a line, and the connection left open: only the deadline ends it.
  const std::string reply = serve(limits, "{\"v\":1,");
  EXPECT_NE(reply.find("no complete request line within 100 ms"), std::string::npos) << reply;
  ASSERT_EQ(refusals_.size(), 1U);
}

}  // namespace
}  // namespace gaptrain::daemon
