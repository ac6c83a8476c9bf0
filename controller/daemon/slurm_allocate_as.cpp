// slurm_compat::allocate_as: an allocation owned by another user, asked for with that user's
// own credential (slurm_compat.hpp says why every release goes this way).
//
// A forked child drops to the user's ids and makes the one libslurm call; a pipe carries its
// answer back. gaptraind calls libslurm from its Slurm worker thread only, and this runs on that
// thread, so no libslurm lock is held by another thread at the fork. The child calls nothing
// that needs NSS (the groups are looked up before the fork) and leaves by _exit, so the parent's
// buffers and atexit handlers are not run twice.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "slurm_api.hpp"
#include "slurm_compat.hpp"

namespace gaptrain::daemon::slurm_compat {

namespace {

// What the child writes to the pipe: one fixed-size record.
struct ChildAnswer {
  int drop_errno = 0;   // set when the child could not take the user's ids
  int slurm_error = 0;  // set when slurm_allocate_resources failed
  std::uint32_t job_id = 0;
  std::uint8_t granted = 0;  // the answer named nodes (not queued)
};

// The user's supplementary groups as their login would have them; only `gid` when the uid has
// no passwd entry (the credential then carries the job's group alone).
std::vector<gid_t> groups_of(uid_t uid, gid_t gid) {
  std::vector<gid_t> groups{gid};
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 16384> text{};
  if (getpwuid_r(uid, &entry, text.data(), text.size(), &found) != 0 || found == nullptr) {
    return groups;
  }
  int count = 64;
  groups.resize(static_cast<std::size_t>(count));
  if (getgrouplist(entry.pw_name, gid, groups.data(), &count) == -1) {
    groups.resize(static_cast<std::size_t>(count));  // count now says how many there are
    if (getgrouplist(entry.pw_name, gid, groups.data(), &count) == -1) return {gid};
  }
  groups.resize(static_cast<std::size_t>(count));
  return groups;
}

void write_answer(int fd, const ChildAnswer& answer) {
  const auto* bytes = reinterpret_cast<const char*>(&answer);
  std::size_t done = 0;
  while (done < sizeof answer) {
    const ssize_t n = write(fd, bytes + done, sizeof answer - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void allocate_in_child(int fd, uid_t uid, gid_t gid, const std::vector<gid_t>& groups,
                                    job_desc_msg_t& desc) {
  ChildAnswer answer;
  // Already that user (gaptraind run by the job's owner, as in some tests): nothing to drop.
  const bool same_user = getuid() == uid && geteuid() == uid && getgid() == gid;
  if (!same_user && (setgroups(groups.size(), groups.data()) != 0 ||
                     setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)) {
    answer.drop_errno = errno;
    write_answer(fd, answer);
    _exit(1);
  }
  resource_allocation_response_msg_t* response = nullptr;
  if (slurm_allocate_resources(&desc, &response) != SLURM_SUCCESS) {
    answer.slurm_error = last_error();
    if (answer.slurm_error == 0) answer.slurm_error = SLURM_ERROR;  // failed, reason not set
  } else if (response != nullptr) {
    answer.job_id = job_id_of(*response);
    answer.granted = response->node_list != nullptr && *response->node_list != '\0';
  }
  write_answer(fd, answer);
  _exit(0);
}

// Reads the child's record; false when it ended without writing all of it.
bool read_answer(int fd, ChildAnswer& answer) {
  auto* bytes = reinterpret_cast<char*>(&answer);
  std::size_t done = 0;
  while (done < sizeof answer) {
    const ssize_t n = read(fd, bytes + done, sizeof answer - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string exit_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

OwnedAllocation allocate_as(std::uint32_t uid, std::uint32_t gid, job_descriptor& desc) {
  OwnedAllocation result;
  // Releases that still read these (22.05's _valid_id) insist that they match the credential.
  desc.user_id = uid;
  desc.group_id = gid;
  const std::vector<gid_t> groups = groups_of(uid, gid);
  std::array<int, 2> pipe_fds{};
  if (pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
    result.error = std::string("no pipe for the allocating process: ") + std::strerror(errno);
    return result;
  }
  const pid_t child = fork();
  if (child < 0) {
    result.error = std::string("cannot start the allocating process: ") + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return result;
  }
  if (child == 0) {
    close(pipe_fds[0]);
    allocate_in_child(pipe_fds[1], uid, gid, groups, desc);
  }
  close(pipe_fds[1]);
  ChildAnswer answer;
  const bool answered = read_answer(pipe_fds[0], answer);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!answered) {
    result.error = "the allocating process ended without an answer (" + exit_text(status) + ")";
  } else if (answer.drop_errno != 0) {
    result.error = "cannot act as uid " + std::to_string(uid) + " gid " + std::to_string(gid) +
                   " (" + std::strerror(answer.drop_errno) +
                   "): gaptraind must run as root to allocate nodes for a job's owner";
  } else if (answer.slurm_error != 0) {
    result.error = error_text(answer.slurm_error);
  } else {
    result.job_id = answer.job_id;
    result.granted = answer.granted != 0;
  }
  return result;
}

}  // namespace gaptrain::daemon::slurm_compat
