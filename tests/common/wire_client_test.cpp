#include "gaptrain/wire_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "loopback_server.hpp"

namespace gaptrain::wire::wire_client_test {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(WireClientTest, ParsesEndpoints) {
  const auto v4 = parse_endpoint("127.0.0.1:6830");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 6830);
  const auto v6 = parse_endpoint("[::1]:7");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 7);
  const auto name = parse_endpoint("ctl.example.org:65535");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->host, "ctl.example.org");
  for (const char* bad : {"", "host", "host:", ":80", "host:0", "host:65536", "host:8x", "::1:80",
                          "[::1]80", "[::1", "a b:80", "host:-1", "host:+80"}) {
    EXPECT_FALSE(parse_endpoint(bad)) << bad;
  }
}

TEST(WireClientTest, SendsOneLineAndReturnsTheFirstReplyLine) {
  std::string received;
  test::LoopbackServer server([&](const std::string& line) -> std::optional<std::string> {
    received = line;
    return std::string("{\"ok\":true}\nsecond line\n");
  });
  const Reply reply = request({"127.0.0.1", server.port()}, "hello", milliseconds(2000));
  EXPECT_TRUE(reply.delivered) << reply.text;
  EXPECT_EQ(reply.text, "{\"ok\":true}");
  EXPECT_EQ(received, "hello");
}

TEST(WireClientTest, AcceptsAFinalLineWithoutNewline) {
  test::LoopbackServer server(
      [](const std::string&) -> std::optional<std::string> { return std::string("done"); });
  const Reply reply = request({"127.0.0.1", server.port()}, "x", milliseconds(2000));
  EXPECT_TRUE(reply.delivered) << reply.text;
  EXPECT_EQ(reply.text, "done");
}

TEST(WireClientTest, CarriesLongLines) {
  std::size_t length = 0;
  test::LoopbackServer server([&](const std::string& line) -> std::optional<std::string> {
    length = line.size();
    return std::string("ok\n");
  });
  const std::string big(300'000, 'a');  // larger than a socket buffer: exercises partial sends
  const Reply reply = request({"127.0.0.1", server.port()}, big, milliseconds(5000));
  EXPECT_TRUE(reply.delivered) << reply.text;
  EXPECT_EQ(length, big.size());
}

TEST(WireClientTest, RespectsTheDeadlineWhenTheServerNeverAnswers) {
  test::LoopbackServer server(
      [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
  const auto start = Clock::now();
  const Reply reply = request({"127.0.0.1", server.port()}, "ping", milliseconds(100));
  const auto elapsed = Clock::now() - start;
  EXPECT_FALSE(reply.delivered);
  EXPECT_NE(reply.text.find("timed out"), std::string::npos) << reply.text;
  EXPECT_GE(elapsed, milliseconds(95));  // not before the deadline (an upper bound would be timing)
}

// "refused", not "timed out": the client gives up at once, not at its deadline.
TEST(WireClientTest, ConnectionRefusedFailsWithoutWaitingForTheDeadline) {
  const Reply reply = request({"127.0.0.1", test::unused_port()}, "ping", milliseconds(60000));
  EXPECT_FALSE(reply.delivered);
  EXPECT_NE(reply.text.find("refused"), std::string::npos) << reply.text;
}

TEST(WireClientTest, ServerClosingWithoutReplyIsNotDelivered) {
  test::LoopbackServer server(
      [](const std::string&) -> std::optional<std::string> { return std::string(); });
  const Reply reply = request({"127.0.0.1", server.port()}, "ping", milliseconds(2000));
  EXPECT_FALSE(reply.delivered);
  EXPECT_FALSE(reply.text.empty());
}

TEST(WireClientTest, UnresolvableNameIsNotDelivered) {
  const Reply reply = request({"no-such-host.invalid", 80}, "ping", milliseconds(300));
  EXPECT_FALSE(reply.delivered);
  EXPECT_FALSE(reply.text.empty());
}

TEST(WireClientTest, ResolvesLocalhost) {
  test::LoopbackServer server(
      [](const std::string&) -> std::optional<std::string> { return std::string("ok\n"); });
  const Reply reply = request({"localhost", server.port()}, "ping", milliseconds(2000));
  EXPECT_TRUE(reply.delivered) << reply.text;
}

}  // namespace
}  // namespace gaptrain::wire::wire_client_test
