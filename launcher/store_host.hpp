// The job's rendezvous store in the home mode (protocol::LaunchInstruction::home): the batch
// script runs on a home node that never trains, so no worker there can serve the store as the
// batch host's worker does in today's mode. gaptrain-launch runs `python3 -m gaptrain.store_host`
// beside itself instead (the interpreter from GAPTRAIN_PYTHON, default python3), for the job's
// whole life: the workers come and go, even all of them (a paused job), and the store with the
// group's plans stays. Should it die, it is started again (at most once a second): the workers
// then find their store gone and go on from the checkpoint, as when the batch host's worker dies.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gaptrain::launch {

class StoreHost {
 public:
  using Clock = std::chrono::steady_clock;

  // `env`: the workers' environment (the store's address, port and secret among it).
  StoreHost(std::vector<std::string> argv, std::vector<std::string> env)
      : argv_(std::move(argv)), env_(std::move(env)) {}
  StoreHost(const StoreHost&) = delete;
  StoreHost& operator=(const StoreHost&) = delete;
  ~StoreHost() { stop(); }

  // Starts the store host when it does not run (first, or after it ended); a line for the job's
  // output when something happened, else empty.
  std::optional<std::string> keep_running(Clock::time_point now);
  // SIGTERM, then SIGKILL if it has not ended within 2 s. Harmless when it does not run.
  void stop();
  bool running() const noexcept { return pid_ > 0; }

  // The command: GAPTRAIN_PYTHON's interpreter (or python3) -m gaptrain.store_host.
  static std::vector<std::string> command(const char* python_env);

 private:
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int starts_ = 0;
  int quick_deaths_ = 0;  // in a row, each within 10 s of its start
  Clock::time_point started_at_{};
  Clock::time_point next_start_{};
};

}  // namespace gaptrain::launch
