#include "plugin_args.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gaptrain::plugin::plugin_args_test {
namespace {

TEST(PluginArgsTest, NoArgumentsLoadWithoutAController) {
  const ParsedArgs parsed = parse_plugin_args({});
  EXPECT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_FALSE(parsed.config.controller);
  EXPECT_TRUE(parsed.config.munge_socket.empty());
  EXPECT_EQ(parsed.config.timeout.count(), 50);
}

TEST(PluginArgsTest, ReadsAllArguments) {
  const ParsedArgs parsed = parse_plugin_args(
      {"controller=10.0.0.5:6830", "munge_socket=/run/munge/munge.socket.2", "timeout_ms=200"});
  EXPECT_TRUE(parsed.error.empty()) << parsed.error;
  ASSERT_TRUE(parsed.config.controller);
  EXPECT_EQ(parsed.config.controller->host, "10.0.0.5");
  EXPECT_EQ(parsed.config.controller->port, 6830);
  EXPECT_EQ(parsed.config.munge_socket, "/run/munge/munge.socket.2");
  EXPECT_EQ(parsed.config.timeout.count(), 200);
}

TEST(PluginArgsTest, AcceptsTheBoundsOfTimeout) {
  EXPECT_EQ(parse_plugin_args({"timeout_ms=1"}).config.timeout.count(), 1);
  EXPECT_EQ(parse_plugin_args({"timeout_ms=10000"}).config.timeout.count(), 10'000);
}

// Each bad argument refuses the whole plugin with one line that names the argument and says
// what is allowed instead.
struct BadArgument {
  std::string case_name;  // the ctest name's suffix
  std::vector<std::string_view> args;
  std::string names;    // the argument as the admin wrote it
  std::string allowed;  // what the line says is allowed
};

// gtest prints a parameter in the test's name; without this, as raw bytes.
[[maybe_unused]] void PrintTo(const BadArgument& bad, std::ostream* out) {
  *out << bad.case_name;
}

class PluginArgsRefusal : public testing::TestWithParam<BadArgument> {};

TEST_P(PluginArgsRefusal, RefusesWithOneLineNamingTheArgumentAndWhatIsAllowed) {
  const BadArgument& bad = GetParam();
  const ParsedArgs parsed = parse_plugin_args(bad.args);
  const std::string& e = parsed.error;
  ASSERT_FALSE(e.empty());
  EXPECT_TRUE(e.starts_with("gaptrain: plugstack.conf argument \"" + bad.names + "\": ")) << e;
  EXPECT_NE(e.find(bad.allowed), std::string::npos) << e;
  EXPECT_TRUE(e.ends_with("; the plugin is not loaded")) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

INSTANTIATE_TEST_SUITE_P(
    EveryCase, PluginArgsRefusal,
    testing::Values(
        BadArgument{"UnknownKey",
                    {"colour=blue"},
                    "colour=blue",
                    "unknown key; known: controller=, munge_socket=, timeout_ms="},
        BadArgument{"NoEquals", {"verbose"}, "verbose", "expected KEY=VALUE"},
        BadArgument{"ControllerWithoutPort",
                    {"controller=nohost"},
                    "controller=nohost",
                    "controller= expects HOST:PORT"},
        BadArgument{
            "EmptyController", {"controller="}, "controller=", "controller= expects HOST:PORT"},
        BadArgument{"ControllerPortTooHigh",
                    {"controller=h:99999"},
                    "controller=h:99999",
                    "controller= expects HOST:PORT"},
        BadArgument{"RelativeMungeSocket",
                    {"munge_socket=munge.sock"},
                    "munge_socket=munge.sock",
                    "munge_socket= expects an absolute path"},
        BadArgument{"EmptyMungeSocket",
                    {"munge_socket="},
                    "munge_socket=",
                    "munge_socket= expects an absolute path"},
        BadArgument{"ZeroTimeout",
                    {"timeout_ms=0"},
                    "timeout_ms=0",
                    "timeout_ms= expects whole milliseconds"},
        BadArgument{"TimeoutTooLong", {"timeout_ms=10001"}, "timeout_ms=10001", "from 1 to 10000"},
        BadArgument{"TimeoutNotANumber", {"timeout_ms=abc"}, "timeout_ms=abc", "from 1 to 10000"},
        BadArgument{"TimeoutWithUnit", {"timeout_ms=50ms"}, "timeout_ms=50ms", "from 1 to 10000"},
        BadArgument{"RepeatedKey",
                    {"timeout_ms=50", "timeout_ms=60"},
                    "timeout_ms=60",
                    "timeout_ms= is given more than once"},
        // The first bad argument is reported even when good ones follow.
        BadArgument{"FirstBadOfSeveral",
                    {"controller=10.0.0.5:6830", "Controller=10.0.0.5:6830", "timeout_ms=50"},
                    "Controller=10.0.0.5:6830",
                    "unknown key"}),
    [](const testing::TestParamInfo<BadArgument>& param) { return param.param.case_name; });

}  // namespace
}  // namespace gaptrain::plugin::plugin_args_test
