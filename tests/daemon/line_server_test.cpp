// The daemon's transport refuses what would tie it up: a request line over the length cap and a
// client that sends no complete line before the read deadline. A real sd-event loop on
// loopback; the client runs in a thread. Nothing here asserts how long anything took.
#include "line_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace gaptrain::daemon::line_server_test {
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

// A socket connected to 127.0.0.1:port from `source` (any 127.x.y.z is this host), or -1.
int connect_from(const char* source, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, source, &local.sin_addr);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the server sends on `fd` until it closes (or `give_up`), while `event` turns.
std::string read_reply(sd_event* event, int fd,
                       std::chrono::seconds give_up_after = std::chrono::seconds(30)) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  std::string reply;
  const auto give_up = std::chrono::steady_clock::now() + give_up_after;
  while (std::chrono::steady_clock::now() < give_up) {
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n == 0) break;
    if (n > 0) {
      reply.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    sd_event_run(event, 10'000);
  }
  return reply;
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
  std::string serve(LineServer::Limits limits, const std::string& request) {
    LineServer server(
        event_,
        [](std::string_view line, const std::string&) { return "echo " + std::string(line); },
        [this](const std::string&, const std::string& reason) { refusals_.push_back(reason); },
        limits);
    const std::uint16_t port = free_port();
    server.listen(core::ListenAddress{"127.0.0.1", port});
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

// Runs `event` until `condition` holds (or 30 s: the test then fails on what it checks next).
template <typename Condition>
void run_until(sd_event* event, Condition condition) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition() && std::chrono::steady_clock::now() < give_up) sd_event_run(event, 10'000);
}

LineServer::ImmediateHandler echo() {
  return [](std::string_view line, const std::string&) { return "echo " + std::string(line); };
}

// Whoever holds idle connections (a probe held 100 from 127.0.0.1) cannot shut out a client that
// sends its request at once from the same address: the oldest idle connection gives way.
TEST_F(LineServerTest, IdleConnectionsGiveWayToAClientWithARequest) {
  LineServer::Limits limits;
  limits.read_deadline = std::chrono::seconds(60);  // the idle ones stay open
  limits.max_connections_per_peer = 2;
  limits.max_connections = 3;
  LineServer server(
      event_, echo(), [this](const std::string&, const std::string& r) { refusals_.push_back(r); },
      limits);
  const std::uint16_t port = free_port();
  server.listen(core::ListenAddress{"127.0.0.1", port});
  const int idle1 = connect_from("127.0.0.1", port);
  const int idle2 = connect_from("127.0.0.1", port);
  run_until(event_, [&] { return server.connections() == 2; });
  ASSERT_EQ(server.connections(), 2U);

  // A third from the same address is served; the oldest idle one is closed with a line that
  // says why.
  const int third = connect_from("127.0.0.1", port);
  ASSERT_EQ(::send(third, "hi\n", 3, MSG_NOSIGNAL), 3);
  EXPECT_EQ(read_reply(event_, third), "echo hi\n");
  ::close(third);
  const std::string dropped = read_reply(event_, idle1);
  EXPECT_NE(dropped.find("too many connections from 127.0.0.1"), std::string::npos) << dropped;
  EXPECT_EQ(server.connections(), 1U);  // idle2

  // The total: with 3 open (idle2 and two more hosts), a fourth host makes the oldest idle
  // connection give way too.
  const int second_host = connect_from("127.0.0.2", port);
  const int third_host = connect_from("127.0.0.3", port);
  run_until(event_, [&] { return server.connections() == 3; });
  const int fourth_host = connect_from("127.0.0.4", port);
  ASSERT_EQ(::send(fourth_host, "ok\n", 3, MSG_NOSIGNAL), 3);
  EXPECT_EQ(read_reply(event_, fourth_host), "echo ok\n");
  ::close(fourth_host);
  const std::string full = read_reply(event_, idle2);
  EXPECT_NE(full.find("too many connections at once"), std::string::npos) << full;
  EXPECT_EQ(server.over_cap(), 2U);
  EXPECT_TRUE(refusals_.empty()) << "a cap is not the client's fault: " << refusals_.front();

  for (const int fd : {idle1, idle2, second_host, third_host}) ::close(fd);
  run_until(event_, [&] { return server.connections() == 0; });
  EXPECT_EQ(server.connections(), 0U);
}

// Only connections still waiting for their line give way: one being answered is never cut off,
// and a newcomer is refused instead.
TEST_F(LineServerTest, ANewcomerIsRefusedWhenEveryConnectionIsBeingAnswered) {
  LineServer::Limits limits;
  limits.max_connections_per_peer = 1;
  limits.max_connections = 1;
  std::vector<LineServer::ConnectionId> waiting;
  LineServer server(
      event_,
      [&](std::string_view, const std::string&, LineServer::ConnectionId id) {
        waiting.push_back(id);  // answered later
      },
      [this](const std::string&, const std::string& r) { refusals_.push_back(r); }, limits);
  const std::uint16_t port = free_port();
  server.listen(core::ListenAddress{"127.0.0.1", port});
  const int first = connect_from("127.0.0.1", port);
  ASSERT_EQ(::send(first, "slow\n", 5, MSG_NOSIGNAL), 5);
  run_until(event_, [&] { return waiting.size() == 1; });
  ASSERT_EQ(waiting.size(), 1U);

  const int second = connect_from("127.0.0.1", port);
  const std::string refused = read_reply(event_, second);
  EXPECT_NE(refused.find("too many requests at once"), std::string::npos) << refused;
  ::close(second);

  server.reply(waiting.front(), "done");
  EXPECT_EQ(read_reply(event_, first), "done\n");
  ::close(first);
}

TEST_F(LineServerTest, OutOfFileDescriptorsTheLoopWaitsInsteadOfSpinning) {
  LineServer server(
      event_, echo(), [this](const std::string&, const std::string& r) { refusals_.push_back(r); },
      LineServer::Limits{});
  const std::uint16_t port = free_port();
  server.listen(core::ListenAddress{"127.0.0.1", port});
  const int client = connect_from("127.0.0.1", port);
  ASSERT_GE(client, 0);
  ASSERT_EQ(::send(client, "hello\n", 6, MSG_NOSIGNAL), 6);

  // No descriptor left for accept(): a lower limit, and every one below it taken.
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit lowered = before;
  lowered.rlim_cur = static_cast<rlim_t>(::dup(0)) + 1;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  std::vector<int> taken;
  for (int fd = ::open("/dev/null", O_RDONLY); fd >= 0; fd = ::open("/dev/null", O_RDONLY)) {
    taken.push_back(fd);
  }
  // A pending connection it cannot accept keeps the listening socket readable: a loop that
  // retries at once turns tens of thousands of times in these 300 ms, one that waits a few.
  std::uint64_t first = 0;
  sd_event_get_iteration(event_, &first);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) sd_event_run(event_, 10'000);
  std::uint64_t last = 0;
  sd_event_get_iteration(event_, &last);
  for (const int fd : taken) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  std::cout << "out of descriptors for 300 ms: " << last - first << " loop iterations\n";
  EXPECT_LT(last - first, 200U) << "the loop spun on the listening socket";
  EXPECT_GE(server.accept_pauses(), 1U);

  // Descriptors free again: the waiting connection is served.
  EXPECT_EQ(read_reply(event_, client), "echo hello\n");
  ::close(client);
}

TEST_F(LineServerTest, ADeadlineThatFiresLateIsNotHeldAgainstThePeer) {
  LineServer::Limits limits;
  limits.read_deadline = std::chrono::milliseconds(500);
  std::atomic<bool> loop_free{false};
  LineServer server(
      event_,
      [&](std::string_view line, const std::string&) {
        // Holds the loop up well past the other connection's deadline.
        if (line == "slow") std::this_thread::sleep_for(std::chrono::seconds(2));
        return "echo " + std::string(line);
      },
      [this](const std::string&, const std::string& r) { refusals_.push_back(r); }, limits);
  const std::uint16_t port = free_port();
  server.listen(core::ListenAddress{"127.0.0.1", port});
  // An innocent client connects; the loop accepts it (its deadline runs from now).
  const int innocent = connect_from("127.0.0.2", port);
  run_until(event_, [&] { return server.connections() == 1; });
  ASSERT_EQ(server.connections(), 1U);
  // Another request holds the loop for 2 s; the innocent one sends its line as soon as the
  // loop is free again, well within its own 500 ms of the loop's attention.
  std::thread slow_client([&] {
    exchange(port, "slow\n");
    ASSERT_EQ(::send(innocent, "mine\n", 5, MSG_NOSIGNAL), 5);
    loop_free = true;
  });
  run_until(event_, [&] { return loop_free.load(); });
  slow_client.join();
  EXPECT_EQ(read_reply(event_, innocent), "echo mine\n");
  EXPECT_TRUE(refusals_.empty()) << refusals_.front();
  ::close(innocent);
}

TEST_F(LineServerTest, ALaterReplyAnswersItsOwnConnectionOnly) {
  std::vector<LineServer::ConnectionId> waiting;
  LineServer::Limits limits;
  limits.reply_deadline = std::chrono::milliseconds(300);
  LineServer server(
      event_,
      [&](std::string_view, const std::string&, LineServer::ConnectionId id) {
        waiting.push_back(id);
      },
      [this](const std::string&, const std::string& r) { refusals_.push_back(r); }, limits);
  const std::uint16_t port = free_port();
  server.listen(core::ListenAddress{"127.0.0.1", port});
  const int first = connect_from("127.0.0.1", port);
  ASSERT_EQ(::send(first, "a\n", 2, MSG_NOSIGNAL), 2);
  run_until(event_, [&] { return waiting.size() == 1; });
  ASSERT_EQ(waiting.size(), 1U);
  server.reply(waiting[0], "later");
  EXPECT_EQ(read_reply(event_, first), "later\n");
  server.reply(waiting[0], "again");  // closed meanwhile: dropped

  // Unanswered, the connection is told the server is busy, and the client is not blamed.
  const int second = connect_from("127.0.0.1", port);
  ASSERT_EQ(::send(second, "b\n", 2, MSG_NOSIGNAL), 2);
  const std::string busy = read_reply(event_, second);
  EXPECT_NE(busy.find("busy"), std::string::npos) << busy;
  EXPECT_TRUE(refusals_.empty());
  ::close(first);
  ::close(second);
}

}  // namespace
}  // namespace gaptrain::daemon::line_server_test
