// The job's rendezvous store in the home mode (protocol::LaunchInstruction::home): the batch
// script runs on a home node that never trains, so no worker there can serve the store as the
// batch host's worker does in today's mode. gaptrain-launch runs `python3 -m gaptrain.store_host`
// beside itself instead (see command() for which Python), for the job's
// whole life: the workers come and go, even all of them (a paused job), and the store with the
// group's plans stays. Should it die, it is started again (at most once a second): the workers
// then find their store gone and go on from the checkpoint, as when the batch host's worker dies.
// One that ends at once five times in a row (a Python without torch or gaptrain) is given up:
// the launcher then ends the job with that error instead of holding nodes for nothing.
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
  // output when something happened, else empty. Does nothing once given up.
  std::optional<std::string> keep_running(Clock::time_point now);
  // SIGTERM, then SIGKILL if it has not ended within 2 s. Harmless when it does not run.
  void stop();
  bool running() const noexcept { return pid_ > 0; }
  // It ended (or could not start) at once too many times in a row: the job cannot go on.
  bool gave_up() const noexcept { return gave_up_; }

  // The command, `PYTHON -m gaptrain.store_host`: PYTHON is GAPTRAIN_PYTHON's interpreter, else
  // the training command's first word when that is a Python (python, python3, python3.11, with
  // or without a path), else python3.
  static std::vector<std::string> command(const char* python_env,
                                          const std::vector<std::string>& training);

 private:
  // Counts an end (ran: after a while, else at once); true when that gives it up.
  bool count_end(bool ran);

  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int starts_ = 0;
  int quick_ends_ = 0;  // in a row, each within 10 s of its start (or a failed start)
  bool gave_up_ = false;
  Clock::time_point started_at_{};
  Clock::time_point next_start_{};
};

}  // namespace gaptrain::launch
