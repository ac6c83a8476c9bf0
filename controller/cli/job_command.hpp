// `gaptrain job ID`: what happened to one elastic job, asked of gaptraind (protocol "job"):
// its resizes with their local times, kinds and reasons, its throughput against its curve,
// node-hours and the time lost to resizes; --json prints the daemon's job object
// (controller/daemon/job_view.hpp), --plot FILE.svg draws it (job_plot.hpp).
#pragma once

#include <json/value.h>

#include <string>

#include "command.hpp"

namespace gaptrain::cli {

// Adds the `job` subcommand. Its run() returns kExitOk when the daemon answered, kExitFailure
// when it could not be reached, refused, or has no such job in its history (one line on
// stderr each, saying which), kExitBadInput for bad usage.
Command add_job_command(CLI::App& parent);

// The human summary of a job object, times in the local time zone. Pure, for tests.
std::string format_job(const Json::Value& view);

}  // namespace gaptrain::cli
