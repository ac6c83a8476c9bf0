#include "private_munged.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gaptrain/munge_envelope.hpp"

namespace gaptrain::bench {

namespace {

constexpr auto kStartDeadline = std::chrono::seconds(10);

// `name` on PATH or in the sbin directories root's PATH has; empty when nowhere.
std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// Forks and execs `argv` as user munge (setpriv); the child's pid.
pid_t spawn_as_munge(const std::vector<std::string>& command) {
  std::vector<std::string> args = {find_program("setpriv"), "--reuid=munge", "--regid=munge",
                                   "--init-groups", "--"};
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Not the caller's blocked signals (the stop is a SIGTERM) nor its stderr (munged has its
    // log file).
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

void make_dir(const std::string& path, mode_t mode, const passwd* owner) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    throw std::runtime_error("cannot create " + path);
  }
  ::chmod(path.c_str(), mode);
  if (owner != nullptr && ::chown(path.c_str(), owner->pw_uid, owner->pw_gid) != 0) {
    throw std::runtime_error("cannot give " + path + " to user munge");
  }
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<std::string> PrivateMunged::unavailable() {
  if (::geteuid() != 0) return "not root (munged must run as user munge)";
  for (const char* program : {"munged", "mungekey", "setpriv"}) {
    if (find_program(program).empty()) return std::string(program) + " not found";
  }
  if (::getpwnam("munge") == nullptr) return "no user munge";
  return std::nullopt;
}

PrivateMunged::PrivateMunged(const std::string& dir) {
  const passwd* munge = ::getpwnam("munge");
  if (munge == nullptr) throw std::runtime_error("no user munge");
  // munged refuses a key directory others may enter, and a socket directory they cannot.
  make_dir(dir, 0755, nullptr);
  const std::string private_dir = dir + "/munge";
  const std::string socket_dir = dir + "/munge-socket";
  make_dir(private_dir, 0700, munge);
  make_dir(socket_dir, 0755, munge);
  socket_ = socket_dir + "/munge.socket";
  log_file_ = private_dir + "/munged.log";
  const std::string key = private_dir + "/munge.key";

  int status = 0;
  const pid_t keygen = spawn_as_munge({"mungekey", "--create", "--keyfile=" + key, "--force"});
  if (::waitpid(keygen, &status, 0) != keygen || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("mungekey --create failed");
  }
  std::ofstream(log_file_).flush();
  if (::chown(log_file_.c_str(), munge->pw_uid, munge->pw_gid) != 0) {
    throw std::runtime_error("cannot give " + log_file_ + " to user munge");
  }
  pid_ = spawn_as_munge({find_program("munged"), "--foreground", "--socket=" + socket_,
                         "--key-file=" + key, "--pid-file=" + private_dir + "/munged.pid",
                         "--log-file=" + log_file_, "--seed-file=" + private_dir + "/munged.seed"});

  const auto deadline = std::chrono::steady_clock::now() + kStartDeadline;
  for (;;) {
    try {
      munge::open(munge::seal("ping", socket_), socket_);
      return;
    } catch (const munge::MungeError&) {
    }
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("munged exited at start: " + read_all(log_file_));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      stop();
      throw std::runtime_error("munged did not answer within 10 s: " + read_all(log_file_));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

PrivateMunged::~PrivateMunged() {
  stop();
}

void PrivateMunged::stop() noexcept {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace gaptrain::bench
