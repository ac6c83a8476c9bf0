#include "state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "gaptrain/errno_error.hpp"
#include "gaptrain/parse_number.hpp"

namespace gaptrain::daemon {

namespace {

// The pid the holder wrote, or "" when it cannot be read (it may be writing it right now).
std::string holder_pid(int fd) {
  std::array<char, 32> buffer{};
  const ssize_t got = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  if (got <= 0) return "";
  std::string_view text(buffer.data(), static_cast<std::size_t>(got));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const std::optional<long> pid = parse_number<long>(text);
  if (!pid || *pid <= 0) return "";
  return std::to_string(*pid);
}

std::string owner_and_mode(const struct stat& info) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
  return "owner uid " + std::to_string(info.st_uid) + ", mode " + mode;
}

// Another user must not be able to plant or replace what gaptraind reads back at a start.
void check_state_directory(const std::string& state_path) {
  const std::filesystem::path target(state_path);
  const std::string directory =
      target.has_parent_path() ? target.parent_path().string() : std::string(".");
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) throw_errno(errno, "cannot look at " + directory);
  const uid_t uid = ::geteuid();
  if ((info.st_uid != uid && info.st_uid != 0) || (info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw UnsafeStateDirectory(
        "the state file's directory " + directory + " can be written by other users (" +
        owner_and_mode(info) +
        "): they could plant a state file. Give state_file a directory only gaptraind's user "
        "(or root) can write, e.g. /var/lib/gaptrain (systemd's StateDirectory=gaptrain)");
  }
  if (::lstat(state_path.c_str(), &info) == 0 &&
      (!S_ISREG(info.st_mode) || info.st_uid != uid || (info.st_mode & (S_IWGRP | S_IWOTH)) != 0)) {
    throw UnsafeStateDirectory("the state file " + state_path + " is not gaptraind's own file (" +
                               owner_and_mode(info) +
                               (S_ISREG(info.st_mode) ? "" : ", not a file") +
                               "): remove it, or give state_file another path");
  }
}

}  // namespace

StateLock::StateLock(const std::string& state_path) : path_(state_path + ".lock") {
  check_state_directory(state_path);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) throw_errno(errno, "cannot open the lock file " + path_);
  struct stat lock_info {};
  if (::fstat(fd_, &lock_info) != 0 || lock_info.st_uid != ::geteuid()) {
    ::close(fd_);
    fd_ = -1;
    throw UnsafeStateDirectory("the lock file " + path_ +
                               " is not gaptraind's own: remove it and start gaptraind again");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    const std::string pid = saved == EWOULDBLOCK ? holder_pid(fd_) : "";
    ::close(fd_);
    fd_ = -1;
    if (saved != EWOULDBLOCK) {
      errno = saved;
      throw_errno(errno, "cannot lock " + path_);
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
    throw_errno(errno, "cannot write the pid into " + path_);
  }
}

StateLock::~StateLock() {
  // Closing the last descriptor releases the lock. The file stays: removing it here would
  // race with a starting daemon that opened it already and would then lock an unlinked file.
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gaptrain::daemon
