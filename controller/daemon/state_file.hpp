// What gaptraind must not forget across a restart (a crash, an upgrade, kill -9): the elastic
// jobs' registrations (the plugin registers a job once, when its batch step starts) with what
// was learned of them, and the time limit each managed job was submitted with (its leases are
// capped by it; after a restart Slurm shows only the current lease). Everything else is
// rebuilt from Slurm at the first poll. A small JSON file, written whole and atomically
// (temporary file, fsync, rename), read once at start.
//   {"version":1,
//    "jobs":[{"registration":{...a "register" request (protocol.hpp)...},"uid":UID,
//             "registered_at":EPOCH,"learned_curve":[[N,RATE],...]|absent,
//             "learned_costs":{"up_s":S,"down_s":S}|absent}],
//    "user_limits":{"JOB_ID":MINUTES,...}}
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elastic_jobs.hpp"
#include "gaptrain/protocol.hpp"

namespace gaptrain::daemon {

struct SavedJob {
  protocol::JobRegistration registration;  // what the job registered with
  uid_t uid = 0;
  std::int64_t registered_at = 0;
  // What replaced the assumptions (Source::learned), restored as learned.
  std::optional<std::vector<std::pair<int, double>>> learned_curve;
  std::optional<std::pair<double, double>> learned_costs;  // up, down (s)

  friend bool operator==(const SavedJob&, const SavedJob&) = default;
};

struct DaemonState {
  std::vector<SavedJob> jobs;
  std::map<std::uint32_t, std::uint32_t> user_limits;  // job -> minutes, 0: no limit

  friend bool operator==(const DaemonState&, const DaemonState&) = default;
};

// The state of the managed jobs, as saved.
SavedJob saved_job(const ElasticJob& job);

std::string encode_state(const DaemonState& state);
// Throws gaptrain::InputError naming the field when `json` is not a state of version 1.
DaemonState decode_state(std::string_view json);

// Replaces `path` by `text` atomically: a reader (or a crash) sees the old file or the new
// one, never a mix. Mode 0600. Throws std::system_error naming the step that failed.
void write_file_atomically(const std::string& path, const std::string& text);

// The file's content; nullopt when it does not exist. Throws std::system_error otherwise.
std::optional<std::string> read_file_if_exists(const std::string& path);

}  // namespace gaptrain::daemon
