#include "launcher/launch_options.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <initializer_list>
#include <map>
#include <sstream>

namespace gaptrain::launch::launch_options_test {
namespace {

struct Parsed {
  std::optional<LaunchOptions> options;
  int exit_code = -1;
  std::string out;
  std::string err;
};

Parsed parse(std::initializer_list<const char*> given,
             std::map<std::string, std::string> env = {}) {
  // A fixed array: building a std::vector<const char*> trips GCC 12's -Wnull-dereference.
  std::array<const char*, 32> args{};
  std::size_t count = 0;
  args[count++] = "gaptrain-launch";
  for (const char* arg : given) args[count++] = arg;
  const GetEnv getenv = [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  std::ostringstream out;
  std::ostringstream err;
  Parsed p;
  p.options = parse_options(static_cast<int>(count), args.data(), getenv, out, err, p.exit_code);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(LaunchOptions, DefaultsComeFromTheEnvironment) {
  const Parsed p =
      parse({"--", "python", "-u", "train.py", "--epochs", "3"},
            {{"GAPTRAIN_CONTROLLER", "127.0.0.1:7000"}, {"GAPTRAIN_MUNGE_SOCKET", "/run/m.sock"}});
  ASSERT_TRUE(p.options) << p.err;
  EXPECT_EQ(p.options->controller.host, "127.0.0.1");
  EXPECT_EQ(p.options->controller.port, 7000);
  EXPECT_EQ(p.options->munge_socket, "/run/m.sock");
  EXPECT_EQ(p.options->poll.count(), 500);
  EXPECT_EQ(p.options->grace.count(), 10000);
  EXPECT_EQ(p.options->command,
            (std::vector<std::string>{"python", "-u", "train.py", "--epochs", "3"}));
}

TEST(LaunchOptions, CommandLineWins) {
  const Parsed p = parse({"--controller", "[::1]:9", "--poll-ms", "200", "--grace-s", "2.5",
                          "--progress-file", "p.jsonl", "--max-restarts", "0", "--", "true"},
                         {{"GAPTRAIN_CONTROLLER", "127.0.0.1:7000"}});
  ASSERT_TRUE(p.options) << p.err;
  EXPECT_EQ(p.options->controller.host, "::1");
  EXPECT_EQ(p.options->poll.count(), 200);
  EXPECT_EQ(p.options->grace.count(), 2500);
  EXPECT_EQ(p.options->progress_file, "p.jsonl");
  EXPECT_EQ(p.options->max_restarts, 0);
  EXPECT_TRUE(p.options->munge_socket.empty());
}

TEST(LaunchOptions, SaysWhatToPassWithoutAController) {
  const Parsed p = parse({"--", "true"});
  EXPECT_FALSE(p.options);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("--controller HOST:PORT"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("GAPTRAIN_CONTROLLER"), std::string::npos) << p.err;
}

TEST(LaunchOptions, RefusesBadValues) {
  const std::map<std::string, std::string> env = {{"GAPTRAIN_CONTROLLER", "127.0.0.1:7000"}};
  EXPECT_FALSE(parse({"--"}, env).options);  // no command
  EXPECT_FALSE(parse({"--poll-ms", "0", "--", "true"}, env).options);
  EXPECT_FALSE(parse({"--grace-s", "-1", "--", "true"}, env).options);
  // CLI11's range check lets NaN through (found by tests/fuzz).
  EXPECT_FALSE(parse({"--grace-s", "nan", "--", "true"}, env).options);
  const Parsed bad = parse({"--controller", "nowhere", "--", "true"});
  EXPECT_FALSE(bad.options);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("HOST:PORT"), std::string::npos) << bad.err;
}

TEST(LaunchOptions, HelpExitsZero) {
  const Parsed p = parse({"--help"});
  EXPECT_FALSE(p.options);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_NE(p.out.find("GAPTRAIN_MASTER_ADDR"), std::string::npos) << p.out;
}

TEST(LaunchOptions, TorchrunRunsTheScriptUnderTheRunner) {
  const Parsed p = parse({"--controller", "h:1", "--torchrun", "--", "train.py", "--epochs", "3"});
  ASSERT_TRUE(p.options) << p.err;
  EXPECT_EQ(p.options->command, (std::vector<std::string>{"python3", "-m", "gaptrain.torchrun",
                                                          "train.py", "--epochs", "3"}));
  const Parsed own = parse(
      {"--controller", "h:1", "--torchrun", "--python", "/opt/py/bin/python3", "--", "train.py"});
  ASSERT_TRUE(own.options) << own.err;
  EXPECT_EQ(own.options->command.front(), "/opt/py/bin/python3");
  const Parsed from_env = parse({"--controller", "h:1", "--torchrun", "--", "train.py"},
                                {{"GAPTRAIN_PYTHON", "/usr/bin/python3"}});
  ASSERT_TRUE(from_env.options) << from_env.err;
  EXPECT_EQ(from_env.options->command.front(), "/usr/bin/python3");
  const Parsed plain = parse({"--controller", "h:1", "--", "train.py"});
  ASSERT_TRUE(plain.options) << plain.err;
  EXPECT_EQ(plain.options->command, (std::vector<std::string>{"train.py"}));
}

TEST(LaunchOptions, NoticeSignalByNameOrNone) {
  EXPECT_EQ(parse({"--controller", "h:1", "--", "x"}).options->notice_signal, SIGUSR1);
  // Not asked: only a training that says it handles the signal gets it (ten_cycles' idle loop
  // died of SIGUSR1 at every drain's notice).
  EXPECT_FALSE(parse({"--controller", "h:1", "--", "x"}).options->notice_signal_asked);
  EXPECT_TRUE(parse({"--controller", "h:1", "--notice-signal", "USR1", "--", "x"})
                  .options->notice_signal_asked);
  EXPECT_EQ(parse({"--controller", "h:1", "--notice-signal", "SIGUSR2", "--", "x"})
                .options->notice_signal,
            SIGUSR2);
  EXPECT_EQ(
      parse({"--controller", "h:1", "--notice-signal", "none", "--", "x"}).options->notice_signal,
      0);
  const Parsed bad = parse({"--controller", "h:1", "--notice-signal", "KILL", "--", "x"});
  EXPECT_FALSE(bad.options);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--notice-signal"), std::string::npos) << bad.err;
}

TEST(LaunchOptions, VersionExitsZero) {
  const Parsed p = parse({"--version"});
  EXPECT_FALSE(p.options);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_NE(p.out.find("gaptrain-launch 0."), std::string::npos) << p.out;
}

}  // namespace
}  // namespace gaptrain::launch::launch_options_test
