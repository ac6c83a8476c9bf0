// How subcommands plug into the `gaptrain` executable: each one registers itself on the
// top-level CLI::App and hands back what to run when the user picks it, so main() only builds
// the App and dispatches, and `simulate` or `status` are one registration call away.
#pragma once

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace gaptrain::cli {

// Exit statuses shared by every subcommand (documented in `gaptrain --help`).
inline constexpr int kExitOk = 0;        // the command did what was asked
inline constexpr int kExitFailure = 1;   // it could not (solver failure, internal error, I/O)
inline constexpr int kExitBadInput = 2;  // the input or the command line is wrong; nothing ran

struct Command {
  CLI::App* app = nullptr;  // the subcommand, owned by the top-level App
  // Runs the subcommand once parsing has succeeded; returns the exit status. Reports its own
  // errors on stderr; exceptions it lets through are internal errors.
  std::function<int()> run;
};

}  // namespace gaptrain::cli
