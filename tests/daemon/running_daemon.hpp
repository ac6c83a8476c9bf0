// The real Daemon (sd-event loop, LineServer on loopback, munge through a private munged) on a
// thread of the test process, against the Slurm the test gives it; requests are sealed by munge
// as this process's user (root). For the tests that need gaptraind whole but no cluster.
#pragma once

#include <json/value.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "daemon.hpp"
#include "private_munged.hpp"

namespace gaptrain::daemon::testing {

struct Answer {
  std::optional<std::string> reply;  // empty: none within the timeout
  double ms = 0.0;                   // connect to reply
};

class RunningDaemon {
 public:
  // Why it cannot run here (not root, no munged), or nothing.
  static std::optional<std::string> unavailable() { return bench::PrivateMunged::unavailable(); }

  // Starts munged and the daemon with `config` (its listen port and munge socket are replaced by
  // private ones, its state file by `state_file`: none unless given) and waits until status
  // shows its first poll; `started()` says whether it came up, and `error()` why not.
  // `observer` sees every poll's report.
  RunningDaemon(core::DaemonConfig config, core::SlurmQueries& slurm, core::SlurmActions& actions,
                std::function<void(const PollReport&)> observer = {}, std::string state_file = {});
  // Stops the daemon as SIGTERM does, then munged.
  ~RunningDaemon();
  RunningDaemon(const RunningDaemon&) = delete;
  RunningDaemon& operator=(const RunningDaemon&) = delete;

  bool started() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const core::DaemonConfig& config() const { return config_; }
  const std::string& munge_socket() const;

  // Sends `payload` sealed by munge from address `source` and waits up to `timeout` for the
  // reply line.
  Answer send(const std::string& payload, const char* source, std::chrono::milliseconds timeout);
  // A field of `gaptrain status`'s answer, asked from 127.0.0.2; null without an answer in 5 s.
  Json::Value status_value(const std::string& field);

 private:
  std::string dir_;
  std::unique_ptr<bench::PrivateMunged> munged_;
  core::DaemonConfig config_;
  std::thread loop_;
  std::atomic<bool> constructed_{false};
  std::string start_error_;  // written by the loop's thread before constructed_
  std::string error_;
};

}  // namespace gaptrain::daemon::testing
