// The host file the training reads to know its nodes (GAPTRAIN_HOSTFILE): one node per line,
// the batch host (the rendezvous host) first. Rewritten whenever the job's nodes change.
#pragma once

#include <string>
#include <vector>

namespace gaptrain::launch {

std::string hostfile_text(const std::vector<std::string>& nodes);

// Writes `text` to `path` atomically (a temporary file created exclusively beside it, renamed
// over it), so a step reading it never sees half of it and nothing planted beside it is written
// through. Throws std::system_error naming the path.
void write_atomically(const std::string& path, const std::string& text);

inline void write_hostfile(const std::string& path, const std::vector<std::string>& nodes) {
  write_atomically(path, hostfile_text(nodes));
}

// The names of the job's files in its private directory (private_files.hpp), where every node
// sees them: the host file, the job file (job_file.hpp) and the progress file (progress.hpp).
inline constexpr const char* kHostfileName = "hosts";
inline constexpr const char* kJobFileName = "job.json";
inline constexpr const char* kProgressFileName = "progress.jsonl";

}  // namespace gaptrain::launch
