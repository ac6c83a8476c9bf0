// `gaptrain simulate`: replays a hole trace and an elastic job mix through the allocator
// (controller/simulator/) and reports what gaptrain would have done: a JSON summary, optionally
// a per-event CSV log and an SVG timeline.
#pragma once

#include "command.hpp"

namespace gaptrain::cli {

// Adds the `simulate` subcommand to `parent`. Its run() returns kExitOk after a replay,
// kExitBadInput for unreadable or invalid inputs or options (one line on stderr naming the file
// and line or the option), kExitFailure when an output cannot be written.
Command add_simulate_command(CLI::App& parent);

}  // namespace gaptrain::cli
