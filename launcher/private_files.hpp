// Where a job's files go (the host file, the job file, the progress file) and the checks that
// keep other users out of them. The launcher runs as the job's user and writes these files over
// and over for the job's whole life; a directory another user can write would let that user
// plant a symlink for a write to follow (overwriting any file of the job's user), a file the
// writes fail on, or fake progress. So the files live in a directory only the job's user can
// write, every file is created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, never through a
// link) and renamed into place, and every directory or file that already exists is checked
// before use. docs/user.md ("Where the job's files are") says it for users.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace gaptrain::launch {

// A path the launcher refuses to use; what() says why and what to do.
class UnsafePath : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What is wrong with `info` (lstat of `path`) as a directory the job's files go in, or empty:
// it must be a real directory (not a link), owned by `uid`, writable by nobody else; with
// `private_dir`, also readable by nobody else (mode 0700 or less).
std::optional<std::string> directory_problem(const std::string& path, const struct stat& info,
                                             uid_t uid, bool private_dir);

// What is wrong with `info` (fstat of an open file `path`) as a file the job reads or appends
// to: a regular file owned by `uid` that nobody else can write. Empty when it is fine.
std::optional<std::string> file_problem(const std::string& path, const struct stat& info,
                                        uid_t uid);

// Creates the directory `path` with mode 0700, or accepts it when it already exists as the
// user's own private directory. Throws UnsafePath when it exists and is not, and
// std::system_error when it cannot be created.
void make_private_directory(const std::string& path);

// The directory the job's files go in, and why it is not under the working directory (empty
// when it is).
struct JobDirectory {
  std::string path;
  std::optional<std::string> not_in_working_dir;
};

// The job's private directory: WORKING_DIR/.gaptrain/JOB_ID when the working directory is the
// user's to write and nobody else's (it is normally shared with the other nodes, and another
// user who can write it could swap .gaptrain for a directory of their own), else a fresh
// directory TMP_DIR/gaptrain-JOB_ID.XXXXXX (mkdtemp: a name nobody can create first), TMP_DIR
// being $TMPDIR or /tmp. Throws UnsafePath when WORKING_DIR/.gaptrain or its JOB_ID exists and is
// not the user's own private directory, std::system_error when nothing can be created.
JobDirectory make_job_directory(const std::string& working_dir, const std::string& tmp_dir,
                                const std::string& job_id);

// Checks that the directory of `path`, a file the user named (GAPTRAIN_HOSTFILE,
// GAPTRAIN_JOB_FILE, --progress-file), is one no other user can plant files in or replace them
// in: owned by the user or root, and writable by nobody else unless it is sticky (as /tmp is).
// Throws UnsafePath when it is not, std::system_error when it cannot be looked at.
void check_directory_of(const std::string& path);

// Creates the progress file exclusively (mode 0600) so that it is the user's own before any step
// runs; an existing one (an explicit --progress-file, a requeued job's) must be the user's own
// regular file nobody else can write. Throws UnsafePath when it is not, std::system_error when
// it cannot be created.
void prepare_progress_file(const std::string& path);

// Opens `path` for reading only when it is the user's own regular file nobody else can write
// (O_NOFOLLOW: never through a link; O_NONBLOCK: a named pipe never stalls the caller). The file
// descriptor (close it), -1 when the file does not exist, or throws UnsafePath.
int open_own_file(const std::string& path);

}  // namespace gaptrain::launch
