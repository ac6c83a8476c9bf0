#include "private_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "gaptrain/errno_error.hpp"

namespace gaptrain::launch {

namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string who(const struct stat& info) {
  return "owner uid " + std::to_string(info.st_uid) + ", mode " + octal_mode(info.st_mode);
}

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

// Whether a stranger could write in the directory `info` describes: create, remove or rename
// its entries. Its owner and group are trusted (they can already touch everything in it); a
// sticky directory (/tmp) lets everyone create names but not touch ours.
bool strangers_can_write(const struct stat& info) {
  return (info.st_mode & S_IWOTH) != 0 && (info.st_mode & S_ISVTX) == 0;
}

}  // namespace

std::optional<std::string> directory_problem(const std::string& path, const struct stat& info,
                                             uid_t uid, bool private_dir) {
  if (S_ISLNK(info.st_mode)) return path + " is a symbolic link, not a directory";
  if (!S_ISDIR(info.st_mode)) return path + " is not a directory";
  if (info.st_uid != uid) return path + " is not yours (" + who(info) + ")";
  const mode_t others = private_dir ? (S_IRWXG | S_IRWXO) : (S_IWGRP | S_IWOTH);
  if ((info.st_mode & others) != 0) {
    return path + (private_dir ? " is open to other users (" : " is writable by other users (") +
           who(info) + ")";
  }
  return std::nullopt;
}

std::optional<std::string> file_problem(const std::string& path, const struct stat& info,
                                        uid_t uid) {
  if (!S_ISREG(info.st_mode)) return path + " is not a regular file";
  if (info.st_uid != uid) return path + " is not yours (" + who(info) + ")";
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return path + " is writable by other users (" + who(info) + ")";
  }
  return std::nullopt;
}

void make_private_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    throw_errno(errno, "cannot create the directory " + path);
  }
  // Whether just made or already there: looked at as it is now, never through a link.
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) throw_errno(errno, "cannot look at " + path);
  if (const auto problem = directory_problem(path, info, ::geteuid(), true)) {
    throw UnsafePath(*problem +
                     ": the job's files go only in a directory of your own that nobody else can "
                     "open; another user may have made it to catch them. Remove it (or "
                     "chmod 0700 it if it is yours) and submit again");
  }
}

JobDirectory make_job_directory(const std::string& working_dir, const std::string& tmp_dir,
                                const std::string& job_id) {
  std::optional<std::string> why_not;
  struct stat info {};
  if (working_dir.empty()) {
    why_not = "the working directory is unknown";
  } else if (::access(working_dir.c_str(), W_OK) != 0) {
    why_not = working_dir + " is not writable";
  } else if (::stat(working_dir.c_str(), &info) != 0) {
    why_not = "cannot look at " + working_dir;
  } else if ((info.st_mode & S_IWOTH) != 0) {
    // A group's project directory is trusted: its owner and group can already remove or rename
    // anything in it, the user's data included. A directory every user can write is not (in a
    // sticky one, as /tmp, another user could still make .gaptrain first: a fresh name is safer).
    why_not = working_dir + " is writable by every user (mode " + octal_mode(info.st_mode) + ")";
  }
  if (!why_not) {
    const std::string base = working_dir + "/.gaptrain";
    make_private_directory(base);
    const std::string directory = base + "/" + job_id;
    make_private_directory(directory);
    return {directory, std::nullopt};
  }
  const std::string tmp = tmp_dir.empty() ? std::string("/tmp") : tmp_dir;
  std::string directory = tmp + "/gaptrain-" + job_id + ".XXXXXX";
  check_directory_of(directory);
  if (::mkdtemp(directory.data()) == nullptr) {
    throw_errno(errno, "cannot create a directory in " + tmp);
  }
  return {directory, why_not};
}

void check_directory_of(const std::string& path) {
  const std::string directory = parent_of(path);
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) throw_errno(errno, "cannot look at " + directory);
  if (!S_ISDIR(info.st_mode)) throw UnsafePath(directory + " is not a directory");
  if (strangers_can_write(info)) {
    throw UnsafePath(directory + ", where " + path + " would go, can be written by every user (" +
                     who(info) +
                     "): they could plant a link or a file there. Choose a directory only you "
                     "can write (or leave the path unset: the launcher makes one)");
  }
}

void prepare_progress_file(const std::string& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  if (errno != EEXIST) throw_errno(errno, "cannot create the progress file " + path);
  const int existing = open_own_file(path);
  if (existing < 0) throw_errno(ENOENT, "the progress file " + path + " vanished");
  ::close(existing);
}

int open_own_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    if (errno == ELOOP) throw UnsafePath(path + " is a symbolic link: not read");
    throw UnsafePath("cannot open " + path + ": " + std::generic_category().message(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw UnsafePath("cannot look at " + path + ": " + std::generic_category().message(error));
  }
  if (const auto problem = file_problem(path, info, ::geteuid())) {
    ::close(fd);
    throw UnsafePath(*problem +
                     ": not read (only a file of your own that nobody else can write "
                     "is the job's)");
  }
  return fd;
}

}  // namespace gaptrain::launch
