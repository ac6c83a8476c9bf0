// gaptrain-launch's command line, parsed and validated apart from the program so it is tested
// alone. Defaults for the controller and munge socket come from the environment
// (GAPTRAIN_CONTROLLER, GAPTRAIN_MUNGE_SOCKET: the submit environment reaches the batch job).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "gaptrain/wire_client.hpp"

namespace gaptrain::launch {

struct LaunchOptions {
  wire::Endpoint controller;
  std::string munge_socket;  // empty: munged's default socket
  std::chrono::milliseconds poll{500};
  std::chrono::milliseconds grace{10000};  // SIGTERM to a step, then SIGKILL after this
  std::string progress_file;               // empty: no progress reported
  int max_restarts = 3;                    // per node, before the launcher gives up
  int notice_signal = 10;  // SIGUSR1 (10 on Linux): sent to every step on a notice; 0: none
  // --notice-signal given: the command asked for the signal. Without it the signal goes only to
  // a training that says it handles it (the helper's progress lines): a plain command's default
  // for SIGUSR1 is to die, and a notice must never kill a job.
  bool notice_signal_asked = false;
  std::vector<std::string> command;  // what each step runs (with --torchrun: the runner)
};

using GetEnv = std::function<const char*(const char*)>;

// The options, or empty after printing help (exit_code 0) or what is wrong (exit_code 2) to
// `out` / `err`.
std::optional<LaunchOptions> parse_options(int argc, const char* const* argv, const GetEnv& getenv,
                                           std::ostream& out, std::ostream& err, int& exit_code);

}  // namespace gaptrain::launch
