// A munged of our own for the load generator, as scripts/local-cluster starts one: a fresh key,
// socket, pid, log and seed files under a temporary directory, run as user munge, stopped by
// its pid. Needs root (munged runs as munge, the key must belong to it).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace gaptrain::bench {

class PrivateMunged {
 public:
  // Why a private munged cannot run here (not root, munged, mungekey, setpriv or user munge
  // missing); empty when it can.
  static std::optional<std::string> unavailable();

  // Starts munged under `dir` (created, mode 755) and waits until it seals credentials.
  // Throws std::runtime_error saying why it did not start.
  explicit PrivateMunged(const std::string& dir);
  ~PrivateMunged();  // SIGTERM to its pid, then waits for it
  PrivateMunged(const PrivateMunged&) = delete;
  PrivateMunged& operator=(const PrivateMunged&) = delete;

  const std::string& socket() const noexcept { return socket_; }
  const std::string& log_file() const noexcept { return log_file_; }

 private:
  void stop() noexcept;

  std::string socket_;
  std::string log_file_;
  pid_t pid_ = -1;
};

}  // namespace gaptrain::bench
