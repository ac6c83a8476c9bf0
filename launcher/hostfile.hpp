// The host file the training reads to know its nodes (GAPTRAIN_HOSTFILE): one node per line,
// the batch host (the rendezvous host) first. Rewritten whenever the job's nodes change.
#pragma once

#include <string>
#include <vector>

namespace gaptrain::launch {

std::string hostfile_text(const std::vector<std::string>& nodes);

// Writes `text` to `path` atomically (a temporary file renamed over it), so a step reading it
// never sees half of it. Throws std::system_error naming the path.
void write_atomically(const std::string& path, const std::string& text);

inline void write_hostfile(const std::string& path, const std::vector<std::string>& nodes) {
  write_atomically(path, hostfile_text(nodes));
}

// Where the host file goes when GAPTRAIN_HOSTFILE is not set: `working_dir` when writable (it is
// normally shared with the other nodes), else `tmp_dir`; named after the job.
std::string default_hostfile_path(const std::string& working_dir, const std::string& tmp_dir,
                                  const std::string& job_id);

// `name` in the directory of `path` (the job file and the progress file go beside the host
// file, where every node sees them).
std::string beside(const std::string& path, const std::string& name);

}  // namespace gaptrain::launch
