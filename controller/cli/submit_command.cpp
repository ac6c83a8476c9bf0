#include "submit_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "core/config.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "submit_plan.hpp"

namespace gaptrain::cli {

namespace {

constexpr const char* kSubmitHelp = R"(gaptrain submit: an elastic training job in one line.

  gaptrain submit -N MIN-MAX [options] [sbatch options] -- COMMAND [ARGS...]
  gaptrain submit -N MIN-MAX [options] [sbatch options] --torchrun SCRIPT [ARGS...]

COMMAND runs once on every node the job holds (python3 with the gaptrain package follows
resizes in-process: examples/pytorch-elastic/train_digits.py). --torchrun runs an ordinary
torchrun script (reading RANK, LOCAL_RANK, WORLD_SIZE) under torchrun's elastic agent on every
node, with the rendezvous on the batch host: no wrapper needed.

Options:
  -N, --nodes MIN-MAX   the node range (or N): given once, for Slurm and gaptrain
  --curve FILE          measured throughput, CSV nodes,samples_per_s (else learned)
  --cost UP:DOWN        seconds a grow and a shrink cost the training (else learned)
  --notice S            seconds of notice wanted before a node is taken (gaptraind gives it
                        where its plan allows, up to the site's cap)
  --batch M0:MAX[:PERNODE]
                        the global batch sizes the training may run at: M0 it was tuned at, up
                        to MAX, at most PERNODE samples a node per micro-step (default M0 over
                        the fewest nodes). gaptrain then values the job by its goodput and tells
                        it, at every resize, the batch, micro-steps and learning-rate gain to
                        use (the job file's "batch"; docs/user.md)
  --noise-scale PHI     the training's gradient noise scale in samples at M0 (with --batch;
                        else learned from the grad_sqr/grad_var it reports, M0 until then)
  --torchrun SCRIPT     the rest of the line is a torchrun script and its arguments
  --mix-types           the job may run on nodes of several types at once, at its one curve
  --parsable            print the job id alone (as sbatch --parsable)
  --dry-run             print the sbatch command instead of running it
  --hold                submit held (sbatch --hold) instead of parked (--begin=now+365days):
                        held jobs are admitted first come, first served after the parked ones,
                        which go by the priority Slurm gives them. A --begin of your own
                        submits held too (gaptraind admits the job after that time)
Any other option goes to sbatch as is (-A, --qos, -t, --gres, -o, -J, -p ...). The elastic
partition comes from gaptraind's configuration (/etc/gaptrain/gaptraind.json); -p overrides it.

Exit status: sbatch's (0: submitted, "Submitted batch job N"); 2 bad usage; 1 sbatch could not
be run.)";

// The elastic partition and gaptraind's address, from the site's configuration when this host
// has one; the defaults otherwise.
SubmitSite site_from_environment() {
  SubmitSite site;
  const char* launcher = std::getenv("GAPTRAIN_LAUNCH");
  if (launcher != nullptr && *launcher != '\0') site.launcher = launcher;
  std::optional<daemon::DaemonConfig> config;
  try {
    config = daemon::parse_config(read_text_file(daemon::kDefaultConfigPath));
  } catch (const InputError& e) {
    std::cerr << "gaptrain submit: warning: " << daemon::kDefaultConfigPath << ": " << e.what()
              << "; assuming partition \"" << site.elastic_partition << "\"\n";
  } catch (const std::system_error&) {
    // No configuration on this host: the defaults.
  }
  if (config) site.elastic_partition = config->elastic_partitions.first();
  const char* controller = std::getenv("GAPTRAIN_CONTROLLER");
  if ((controller == nullptr || *controller == '\0') && config) {
    site.controller = daemon::to_string(config->listen);
  }
  return site;
}

}  // namespace

int run_submit(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "-h" || arg == "--help") {
      std::cout << kSubmitHelp << '\n';
      return kExitOk;
    }
  }
  std::string error;
  const std::optional<SubmitRequest> request = parse_submit(args, error);
  if (!request) {
    std::cerr << "gaptrain submit: " << error << " (gaptrain submit --help)\n";
    return kExitBadInput;
  }
  const std::vector<std::string> argv = sbatch_command(*request, site_from_environment());
  if (request->dry_run) {
    std::string line;
    for (const std::string& word : argv) line += (line.empty() ? "" : " ") + shell_quote(word);
    std::cout << line << '\n';
    return kExitOk;
  }
  std::vector<char*> c_argv;
  for (const std::string& word : argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  ::execvp("sbatch", c_argv.data());
  std::cerr << "gaptrain submit: cannot run sbatch: " << std::strerror(errno)
            << " (is Slurm's client installed and on PATH?)\n";
  return kExitFailure;
}

Command add_submit_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("submit", "Submit an elastic training job in one line");
  app->prefix_command();
  app->set_help_flag();
  return {app, [app] { return run_submit(app->remaining()); }};
}

}  // namespace gaptrain::cli
