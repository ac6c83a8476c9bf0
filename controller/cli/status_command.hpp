// `gaptrain status`: asks gaptraind for its live view (holes and how long they will last,
// elastic jobs) and prints it as a table, or with --json as the daemon's status object
// (controller/daemon/status.hpp documents it).
#pragma once

#include <json/value.h>

#include <cstdint>
#include <string>

#include "command.hpp"

namespace gaptrain::cli {

// Adds the `status` subcommand. Its run() returns kExitOk when the daemon answered,
// kExitFailure when it could not be reached or refused (one line on stderr saying how to point
// the command at the daemon), kExitBadInput for a bad --controller or configuration file.
Command add_status_command(CLI::App& parent);

// The human table for a status object as of `now` (epoch seconds). Pure, for tests.
std::string format_status(const Json::Value& status, std::int64_t now);

// "in 3m12s", "12s ago"-style durations: "3m12s", "1h05m", "2d03h".
std::string format_duration(std::int64_t seconds);

}  // namespace gaptrain::cli
