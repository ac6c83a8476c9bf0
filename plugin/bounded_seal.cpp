#include "bounded_seal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "gaptrain/munge_envelope.hpp"

namespace gaptrain::plugin {

namespace {

using Clock = std::chrono::steady_clock;

// Everything the child writes: the credential, or "!" and munge's error.
constexpr char kFailed = '!';
// A munge credential of a small protocol message is ~1 KiB; anything longer is not one.
constexpr std::size_t kMaxCredentialBytes = std::size_t{1} << 20U;

// The child: seal, write the answer, _exit (never return into the loading process: slurmd's
// atexit handlers and C++ destructors belong to the parent).
[[noreturn]] void seal_in_child(int out, std::string_view payload, const std::string& socket) {
  std::string answer;
  try {
    answer = munge::seal(payload, socket);
  } catch (const munge::MungeError& e) {
    answer = std::string(1, kFailed) + e.what();
  } catch (...) {
    answer = std::string(1, kFailed) + "munge: cannot seal";
  }
  std::size_t written = 0;
  while (written < answer.size()) {
    const ssize_t n = ::write(out, answer.data() + written, answer.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    written += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// Reads the child's answer until it closes its end (it exits), the deadline (false) or more than
// a credential's length (the child then ends on EPIPE).
bool read_answer(int in, Clock::time_point deadline, std::string& answer) {
  char buffer[4096];
  for (;;) {
    pollfd p{in, POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // closed: the child is done
    answer.append(buffer, static_cast<std::size_t>(n));
    if (answer.size() > kMaxCredentialBytes) return true;
  }
}

// Reaps the child, killed first when it is still sealing (past the deadline); one that closed
// its pipe has exited already and is not signalled. (Where the loading process reaps every
// child itself, waitpid finds none: ECHILD, nothing left to do.)
void end_child(pid_t child, bool still_sealing) {
  if (still_sealing) ::kill(child, SIGKILL);
  while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Sealed seal_within(std::string_view payload, const std::string& socket_path,
                   Clock::time_point deadline) noexcept {
  try {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return {false, std::string("munge: cannot seal (pipe: ") + std::strerror(errno) + ")"};
    }
    const pid_t child = ::fork();
    if (child < 0) {
      const int error = errno;
      ::close(fds[0]);
      ::close(fds[1]);
      return {false, std::string("munge: cannot seal (fork: ") + std::strerror(error) + ")"};
    }
    if (child == 0) {
      ::close(fds[0]);
      seal_in_child(fds[1], payload, socket_path);
    }
    ::close(fds[1]);
    std::string answer;
    const bool answered = read_answer(fds[0], deadline, answer);
    ::close(fds[0]);
    end_child(child, !answered);
    if (!answered) {
      return {false, "munge: no credential within the message budget (munged at " +
                         (socket_path.empty() ? std::string("its default socket") : socket_path) +
                         " does not answer)"};
    }
    if (answer.empty() || answer.size() > kMaxCredentialBytes) {
      return {false, "munge: cannot seal (no credential)"};
    }
    if (answer.front() == kFailed) return {false, answer.substr(1)};
    return {true, std::move(answer)};
  } catch (...) {
    return {false, "munge: cannot seal"};
  }
}

}  // namespace gaptrain::plugin
