// The thin process layer under gaptrain-launch: start programs (srun, squeue, scancel,
// scontrol) with posix_spawn and reap them. The launcher blocks SIGTERM, SIGINT and SIGCHLD and
// waits for them with sigtimedwait; children start with those signals unblocked and default.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gaptrain::launch {

// The signals the launcher handles in its loop (blocked in every thread).
void block_loop_signals();

// Waits up to `timeout` for one of the loop signals; the signal, or empty on time-out.
std::optional<int> wait_for_signal(std::chrono::milliseconds timeout);

// Starts `argv` (argv[0] looked up in PATH) with environment `env` ("NAME=value"). Throws
// std::system_error when it cannot be started.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// The wait status of `pid` when it has exited (reaped), empty while it runs.
std::optional<int> reap(pid_t pid);

// "exit 3", "signal 9 (Killed)": a wait status for a log line.
std::string describe_status(int status);

struct CommandOutput {
  bool ok = false;  // ran and exited 0 within the deadline
  std::string out;  // its stdout
  std::string why;  // !ok: one line
};

// Runs `argv` with the launcher's environment, stdout captured, killed at `timeout`.
CommandOutput run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// The launcher's environment with `overrides` ("NAME=value") replacing or adding variables.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides);

}  // namespace gaptrain::launch
