// `gaptrain solve FILE`: solves one allocation problem given as JSON (see
// allocator/allocation_json.hpp for the schema) and prints the result as JSON on stdout.
#pragma once

#include "command.hpp"

namespace gaptrain::cli {

// Adds the `solve` subcommand to `parent`. Its run() returns kExitOk when the solver returned
// an allocation (optimal or at the time limit), kExitBadInput for an unreadable or invalid
// problem (one line on stderr, nothing on stdout), and kExitFailure when the solver call failed
// or found nothing (the result JSON, holding the solver's message, is still printed).
Command add_solve_command(CLI::App& parent);

}  // namespace gaptrain::cli
