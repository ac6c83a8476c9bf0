#include "running_daemon.hpp"

#include <arpa/inet.h>
#include <json/reader.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "gaptrain/munge_envelope.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::daemon::testing {

namespace {

using Clock = std::chrono::steady_clock;

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

RunningDaemon::RunningDaemon(core::DaemonConfig config, core::SlurmQueries& slurm,
                             core::SlurmActions& actions,
                             std::function<void(const PollReport&)> observer,
                             std::string state_file)
    : config_(std::move(config)) {
  // Before any thread starts: the daemon's loop reads them from a signalfd.
  sigset_t signals;
  sigemptyset(&signals);
  for (const int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  std::string dir = "/tmp/gaptrain-daemon-test-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    error_ = "cannot make a temporary directory";
    return;
  }
  dir_ = dir;
  // munged runs as user munge: it must reach its directory below this one.
  namespace fs = std::filesystem;
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  munged_ = std::make_unique<bench::PrivateMunged>(dir_ + "/munge");
  config_.listen = core::ListenAddress{"127.0.0.1", free_port()};
  config_.munge_socket = munged_->socket();
  config_.state_file = std::move(state_file);
  loop_ = std::thread([this, &slurm, &actions, observer = std::move(observer)] {
    try {
      Daemon gaptraind("(test)", config_, slurm, actions);
      if (observer) gaptraind.set_poll_observer(observer);
      constructed_ = true;
      gaptraind.run();
    } catch (const std::exception& e) {
      start_error_ = e.what();
      constructed_ = true;
    }
  });
  const auto give_up = Clock::now() + std::chrono::seconds(30);
  while (!constructed_ && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!start_error_.empty()) {
    error_ = start_error_;
    return;
  }
  // Ready once status shows the first poll.
  while (Clock::now() < give_up && status_value("last_poll").isNull()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (status_value("last_poll").isNull()) error_ = "the daemon did not come up within 30 s";
}

RunningDaemon::~RunningDaemon() {
  if (loop_.joinable()) {
    ::kill(::getpid(), SIGTERM);  // drains, and its loop ends
    loop_.join();
  }
  munged_.reset();
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

const std::string& RunningDaemon::munge_socket() const {
  return munged_->socket();
}

Answer RunningDaemon::send(const std::string& payload, const char* source,
                           std::chrono::milliseconds timeout) {
  const std::string line = munge::seal(payload, munged_->socket()) + "\n";
  const auto start = Clock::now();
  Answer answer;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, source, &local.sin_addr);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(config_.listen.port);
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0 &&
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size())) {
    std::string reply;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      reply.append(buffer, static_cast<std::size_t>(n));
      if (reply.ends_with('\n')) {
        answer.reply = reply;
        break;
      }
    }
  }
  ::close(fd);
  answer.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return answer;
}

Json::Value RunningDaemon::status_value(const std::string& field) {
  const Answer answer = send(protocol::encode(protocol::StatusRequest{}), "127.0.0.2",
                             std::chrono::milliseconds(5000));
  Json::Value reply;
  if (!answer.reply || !Json::Reader().parse(*answer.reply, reply)) return Json::nullValue;
  return reply["status"][field];
}

}  // namespace gaptrain::daemon::testing
