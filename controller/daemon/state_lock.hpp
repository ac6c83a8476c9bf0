// One gaptraind per state file. Two daemons on one state would each resize the same jobs from
// their own plan and overwrite each other's saves; the second must not start. The lock is an
// flock(2) on "STATE_FILE.lock" beside the state file, held for the life of the process (the
// kernel drops it when the process ends, however it ends: no stale lock after kill -9), with
// the holder's pid written in it so that the refusal names it.
#pragma once

#include <stdexcept>
#include <string>

namespace gaptrain::daemon {

// Another process holds the lock; what() is the whole message, naming its pid when known.
class StateFileInUse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The state file's directory, or a file in it, is one another user could have planted or could
// replace (fake jobs restored at the next start); what() says which and what to do.
class UnsafeStateDirectory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StateLock {
 public:
  // Takes the lock of `state_path` without waiting. Throws StateFileInUse when another
  // process holds it, UnsafeStateDirectory when the state file's directory is not owned by this
  // process's user or root or can be written by other users, or the lock or state file there is
  // not this user's own (or others can write it), std::system_error when the lock file cannot be
  // created or locked (e.g. its directory does not exist). A symlink at the lock file's name is
  // not followed.
  explicit StateLock(const std::string& state_path);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace gaptrain::daemon
