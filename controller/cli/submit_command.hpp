// `gaptrain submit`: an elastic training job in one line. It writes the sbatch command that
// `docs/user.md` used to ask for by hand (the elastic partition, parking, --no-kill, the node
// range for Slurm, the plugin and the launcher, gaptrain-launch as the batch program) and runs
// sbatch, whose output and exit status become its own. submit_plan.hpp has the translation.
#pragma once

#include <string>
#include <vector>

#include "command.hpp"

namespace gaptrain::cli {

// Lists `submit` in `gaptrain --help`. main() hands `gaptrain submit ...` to run_submit() before
// CLI11 parses anything: sbatch's options and the training command's own (after `--`, which
// CLI11 would take for itself) are not CLI11's to read.
Command add_submit_command(CLI::App& parent);

// `args`: everything after `submit`. Runs sbatch (exec) and returns only on failure.
int run_submit(const std::vector<std::string>& args);

}  // namespace gaptrain::cli
