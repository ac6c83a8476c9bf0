#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "gaptrain/errno_error.hpp"

extern char** environ;

namespace gaptrain::launch {

namespace {

sigset_t loop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGCHLD);
  return set;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn attributes that undo the launcher's signal setup in the child: srun must see
// SIGTERM/SIGINT as usual.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    posix_spawnattr_init(&attr_);
    sigset_t none;
    sigemptyset(&none);
    const sigset_t defaults = loop_signals();
    posix_spawnattr_setsigmask(&attr_, &none);
    posix_spawnattr_setsigdefault(&attr_, &defaults);
    posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_{};
};

pid_t spawn_with(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const posix_spawn_file_actions_t* actions) {
  if (argv.empty()) gaptrain::throw_errno(EINVAL, "empty command");
  const SpawnAttributes attributes;
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(env);
  pid_t pid = 0;
  const int r = posix_spawnp(&pid, args[0], actions, attributes.get(), args.data(), envp.data());
  if (r != 0) gaptrain::throw_errno(r, "cannot start " + argv[0]);
  return pid;
}

}  // namespace

void block_loop_signals() {
  const sigset_t set = loop_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

std::optional<int> wait_for_signal(std::chrono::milliseconds timeout) {
  const sigset_t set = loop_signals();
  const auto ms = timeout.count() < 0 ? 0 : timeout.count();
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ms / 1000);
  ts.tv_nsec = static_cast<long>((ms % 1000) * 1000000);
  const int signal = sigtimedwait(&set, nullptr, &ts);
  if (signal < 0) return std::nullopt;  // EAGAIN (time-out) or EINTR
  return signal;
}

pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  return spawn_with(argv, env, nullptr);
}

std::optional<int> reap(pid_t pid) {
  int status = 0;
  pid_t r = 0;
  do {
    r = waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid) return status;
  if (r < 0 && errno == ECHILD) return 0;  // not ours any more: treat as gone
  return std::nullopt;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  return "status " + std::to_string(status);
}

CommandOutput run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandOutput result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.why = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  pid_t pid = 0;
  try {
    pid = spawn_with(argv, environment_with({}), &actions);
  } catch (const std::system_error& e) {
    posix_spawn_file_actions_destroy(&actions);
    close(fds[0]);
    close(fds[1]);
    result.why = e.what();
    return result;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    const ssize_t got = read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the command closed its stdout
    result.out.append(buffer, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result.why = argv[0] + " did not finish within " + std::to_string(timeout.count()) + " ms";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.why = argv[0] + " ended with " + describe_status(status);
  } else {
    result.ok = true;
  }
  return result;
}

std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides) {
      if (o.compare(0, name.size() + 1, name + "=") == 0) replaced = true;
    }
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

}  // namespace gaptrain::launch
