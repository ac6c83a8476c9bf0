// `gaptrain pause`, `gaptrain resume`, `gaptrain drain` (admins: root or SlurmUser): what
// gaptraind may do (docs/admin.md, "Pause and drain"). Paused: no admissions and no grows,
// leases kept, reclaims served. Drain: the same, and every satellite given back. Resume ends
// either.
#pragma once

#include <string>

#include "command.hpp"

namespace gaptrain::cli {

// Adds the subcommand `name` ("pause", "resume" or "drain"). Its run() returns kExitOk when
// gaptraind applied it, kExitFailure when it could not be reached or refused (one line on
// stderr, saying which), kExitBadInput for bad usage.
Command add_operation_command(CLI::App& parent, const std::string& name);

}  // namespace gaptrain::cli
