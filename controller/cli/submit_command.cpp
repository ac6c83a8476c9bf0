#include "submit_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "core/config.hpp"
#include "gaptrain/cli11.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/text_file.hpp"
#include "submit_plan.hpp"

extern char** environ;

namespace gaptrain::cli {

namespace {

constexpr const char* kSubmitHelp = R"(gaptrain submit: an elastic training job in one line.

  gaptrain submit -N MIN-MAX [options] [sbatch options] -- COMMAND [ARGS...]
  gaptrain submit -N MIN-MAX [options] [sbatch options] --torchrun SCRIPT [ARGS...]

COMMAND runs once on every node the job holds (python3 with the gaptrain package follows
resizes in-process: examples/pytorch-elastic/train_digits.py). --torchrun runs an ordinary
torchrun script (reading RANK, LOCAL_RANK, WORLD_SIZE) under torchrun's elastic agent on every
node, with the rendezvous on the batch host: no wrapper needed. It runs under the python3 of
the environment you submit from (--python), its workers' failures with no resize in between
end the job after --max-restarts, and a script whose workers never form one process group is
warned about in the job's output (docs/user.md, "torchrun scripts").

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
  --python PATH         the interpreter --torchrun runs under (default $GAPTRAIN_PYTHON, else
                        the python3 of this environment: a venv's, a pyenv or conda one, as
                        it names itself); recorded in the job, warned about without torch
  --max-restarts N      restarts of a step that keeps failing on a node, and under --torchrun
                        of the script's workers failing with no resize in between, before the
                        job fails (default 3)
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
  std::optional<core::DaemonConfig> config;
  try {
    config = core::parse_config(read_text_file(core::kDefaultConfigPath));
  } catch (const InputError& e) {
    std::cerr << "gaptrain submit: warning: " << core::kDefaultConfigPath << ": " << e.what()
              << "; assuming partition \"" << site.elastic_partition << "\"\n";
  } catch (const std::system_error&) {
    // No configuration on this host: the defaults.
  }
  if (config) site.elastic_partition = config->elastic_partitions.first();
  const char* controller = std::getenv("GAPTRAIN_CONTROLLER");
  if ((controller == nullptr || *controller == '\0') && config) {
    site.controller = core::to_string(config->listen);
  }
  return site;
}

// Runs `python -c kPythonQuestion` (python a path, or a name looked up on PATH): its output, or
// empty with `why`.
std::optional<std::string> ask_python(const std::string& python, std::string& why) {
  int fds[2];
  if (::pipe(fds) != 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<std::string> words = {python, "-c", kPythonQuestion};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    why = std::strerror(spawned);
    return std::nullopt;
  }
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why = "it did not run the question (status " + std::to_string(status) + ")";
    return std::nullopt;
  }
  return output;
}

// The interpreter a --torchrun job runs under: --python, else $GAPTRAIN_PYTHON, else the
// `python3` of the submitting environment, each as that interpreter names itself. Empty when
// there is none to record (the launcher's default then applies); false on a --python or
// $GAPTRAIN_PYTHON that cannot be run.
bool record_python(SubmitRequest& request) {
  const char* from_env = std::getenv("GAPTRAIN_PYTHON");
  const bool named = request.python_given || (from_env != nullptr && *from_env != '\0');
  const std::string asked = request.python_given ? request.python
                            : named              ? std::string(from_env)
                                                 : std::string("python3");
  const std::string source = request.python_given ? "--python" : named ? "GAPTRAIN_PYTHON" : "";
  std::string why;
  const std::optional<std::string> output = ask_python(asked, why);
  const std::optional<PythonAnswer> answer = output ? python_answer(*output) : std::nullopt;
  if (!answer) {
    if (output) why = "it did not name its executable";
    if (named) {
      std::cerr << "gaptrain submit: " << source << " " << asked << ": cannot run it as Python ("
                << why << "): give the path of the interpreter with torch, e.g. --python "
                << "$(which python3) in the environment you train in\n";
      return false;
    }
    std::cerr << "gaptrain submit: warning: no python3 to record for --torchrun (" << why
              << "): the job runs the nodes' python3; --python PATH names the interpreter\n";
    request.python.clear();
    return true;
  }
  request.python = answer->executable;
  if (!answer->missing.empty()) {
    std::string missing;
    for (const std::string& module : answer->missing)
      missing += (missing.empty() ? "" : ", ") + module;
    std::cerr << "gaptrain submit: warning: " << answer->executable << " cannot import " << missing
              << ", which the job's --torchrun needs (the nodes may differ from this "
              << "host; --python PATH names another interpreter)\n";
  }
  return true;
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
  std::optional<SubmitRequest> request = parse_submit(args, error);
  if (!request) {
    std::cerr << "gaptrain submit: " << error << " (gaptrain submit --help)\n";
    return kExitBadInput;
  }
  if (request->torchrun && !record_python(*request)) return kExitBadInput;
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
