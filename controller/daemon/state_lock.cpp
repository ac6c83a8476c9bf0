#include "state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <string_view>
#include <system_error>

namespace gaptrain::daemon {

namespace {

[[noreturn]] void throw_errno(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}

// The pid the holder wrote, or "" when it cannot be read (it may be writing it right now).
std::string holder_pid(int fd) {
  std::array<char, 32> buffer{};
  const ssize_t got = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  if (got <= 0) return "";
  std::string_view text(buffer.data(), static_cast<std::size_t>(got));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  long pid = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (error != std::errc{} || end != text.data() + text.size() || pid <= 0) return "";
  return std::to_string(pid);
}

}  // namespace

StateLock::StateLock(const std::string& state_path) : path_(state_path + ".lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) throw_errno("cannot open the lock file", path_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    const std::string pid = saved == EWOULDBLOCK ? holder_pid(fd_) : "";
    ::close(fd_);
    fd_ = -1;
    if (saved != EWOULDBLOCK) {
      errno = saved;
      throw_errno("cannot lock", path_);
    }
    throw StateFileInUse("another gaptraind" + (pid.empty() ? "" : " (pid " + pid + ")") +
                         " is running on the state file " + state_path + " (it holds " + path_ +
                         "): stop it first, or give this one another state_file");
  }
  // Ours now: whatever pid an earlier holder left is replaced.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    const int saved = errno;
    ::close(fd_);
    fd_ = -1;
    errno = saved;
    throw_errno("cannot write the pid into", path_);
  }
}

StateLock::~StateLock() {
  // Closing the last descriptor releases the lock. The file stays: removing it here would
  // race with a starting daemon that opened it already and would then lock an unlinked file.
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gaptrain::daemon
