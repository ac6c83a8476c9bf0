#include "plugin_args.hpp"

#include <gtest/gtest.h>

namespace gaptrain::plugin {
namespace {

TEST(PluginArgsTest, DefaultsLeaveThePluginInert) {
  const ParsedArgs parsed = parse_plugin_args({});
  EXPECT_FALSE(parsed.config.controller);
  EXPECT_TRUE(parsed.config.munge_socket.empty());
  EXPECT_EQ(parsed.config.timeout.count(), 50);
  EXPECT_TRUE(parsed.errors.empty());
}

TEST(PluginArgsTest, ReadsAllArguments) {
  const ParsedArgs parsed = parse_plugin_args(
      {"controller=10.0.0.5:6820", "munge_socket=/run/munge/munge.socket.2", "timeout_ms=200"});
  ASSERT_TRUE(parsed.config.controller);
  EXPECT_EQ(parsed.config.controller->host, "10.0.0.5");
  EXPECT_EQ(parsed.config.controller->port, 6820);
  EXPECT_EQ(parsed.config.munge_socket, "/run/munge/munge.socket.2");
  EXPECT_EQ(parsed.config.timeout.count(), 200);
  EXPECT_TRUE(parsed.errors.empty());
}

TEST(PluginArgsTest, ReportsAndIgnoresBadArguments) {
  const ParsedArgs parsed = parse_plugin_args(
      {"colour=blue", "controller=nohost", "timeout_ms=0", "timeout_ms=abc", "verbose"});
  EXPECT_FALSE(parsed.config.controller);
  EXPECT_EQ(parsed.config.timeout.count(), 50);
  ASSERT_EQ(parsed.errors.size(), 5U);
  EXPECT_NE(parsed.errors[0].find("unknown plugin argument \"colour=blue\""), std::string::npos);
  for (const std::string& e : parsed.errors) {
    EXPECT_TRUE(e.starts_with("gaptrain: ")) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace gaptrain::plugin
