#include "launch_options.hpp"

#include <signal.h>

#include <cmath>

#include "gaptrain/cli11.hpp"
#include "gaptrain/version.hpp"

namespace gaptrain::launch {

namespace {

constexpr const char* kFooter = R"(
`gaptrain submit -N MIN-MAX -- CMD ...` submits a job that runs this as its batch script. It runs
CMD once per node of the job (one `srun` step each) and follows gaptraind: new nodes get a step,
nodes to give back have theirs stopped (SIGTERM, SIGKILL after --grace-s). Each step sees
GAPTRAIN_JOB_FILE (the job's nodes, those leaving and notices: docs/job-side.md),
GAPTRAIN_HOSTFILE (the nodes, one a line, batch host first), GAPTRAIN_MASTER_ADDR (the batch
host), GAPTRAIN_RDZV_HOST and GAPTRAIN_RDZV_PORT (where to serve the rendezvous there),
GAPTRAIN_PROGRESS_FILE (where to append progress lines), GAPTRAIN_MIN_NODES,
GAPTRAIN_MAX_NODES, GAPTRAIN_NNODES and GAPTRAIN_JOB_ID. Python's `gaptrain` package reads them
all; with --torchrun, an ordinary torchrun script runs under torchrun's elastic agent.
The job ends when CMD exits 0 on a node (the training finished) and the others have ended; a
failing step is restarted (--max-restarts); exit 75 asks for a restart that is not a failure.
Exit status: 0 the training finished, 1 it failed, 2 bad usage, 128+N stopped by signal N.)";

// "USR1", "SIGUSR1", "none"... the signals a notice may be: those whose default a training
// program is likely to handle or ignore.
std::optional<int> notice_signal_named(std::string name) {
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  if (name == "USR1") return SIGUSR1;
  if (name == "USR2") return SIGUSR2;
  if (name == "URG") return SIGURG;
  if (name == "none" || name == "NONE") return 0;
  return std::nullopt;
}

std::string env_or_empty(const GetEnv& getenv, const char* name) {
  const char* value = getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

std::optional<LaunchOptions> parse_options(int argc, const char* const* argv, const GetEnv& getenv,
                                           std::ostream& out, std::ostream& err, int& exit_code) {
  CLI::App app(
      "gaptrain-launch: runs a training command on every node of an elastic job and "
      "follows gaptraind's resizes",
      "gaptrain-launch");
  app.footer(kFooter);
  std::string controller = env_or_empty(getenv, "GAPTRAIN_CONTROLLER");
  std::string munge_socket = env_or_empty(getenv, "GAPTRAIN_MUNGE_SOCKET");
  int poll_ms = 500;
  double grace_s = 10.0;
  LaunchOptions options;
  bool torchrun = false;
  std::string python = env_or_empty(getenv, "GAPTRAIN_PYTHON");
  if (python.empty()) python = "python3";
  std::string notice_signal = "USR1";
  app.set_version_flag("--version", "gaptrain-launch " + std::string(kVersion),
                       "Print the version and exit");
  app.add_option("--controller", controller, "gaptraind's address (default $GAPTRAIN_CONTROLLER)")
      ->type_name("HOST:PORT");
  app.add_option("--munge-socket", munge_socket,
                 "munged's socket (default $GAPTRAIN_MUNGE_SOCKET, else munged's default)")
      ->type_name("PATH");
  app.add_option("--poll-ms", poll_ms, "How often to report to gaptraind (default 500)")
      ->type_name("MS")
      ->check(CLI::Range(50, 60000));
  app.add_option("--grace-s", grace_s, "Seconds a stopped step gets before SIGKILL (default 10)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--progress-file", options.progress_file,
                 "JSON lines the training appends, with a cumulative \"samples_done\"")
      ->type_name("FILE");
  app.add_option("--max-restarts", options.max_restarts,
                 "Restarts of a failing step per node before giving up (default 3)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000));
  app.add_option("--notice-signal", notice_signal,
                 "Signal every step gets when a node of the job will be taken soon (USR1, USR2, "
                 "URG or none; default USR1). Given, every step gets it; not given, only a "
                 "training that says it handles it (Python's gaptrain package) does")
      ->type_name("SIGNAL");
  app.add_flag("--torchrun", torchrun,
               "CMD is a script written for torchrun: run it as `PYTHON -m gaptrain.torchrun "
               "SCRIPT ARGS` on every node");
  app.add_option("--python", python,
                 "The Python interpreter for --torchrun (default $GAPTRAIN_PYTHON, else python3)")
      ->type_name("PATH");
  app.add_option("command", options.command, "The training command, after --")
      ->required()
      ->type_name("CMD ARGS...");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e, out, err);
    return std::nullopt;
  }
  exit_code = 2;
  if (controller.empty()) {
    err << "gaptrain-launch: no controller: pass --controller HOST:PORT (gaptraind's address) or "
           "set GAPTRAIN_CONTROLLER in the environment you submit from\n";
    return std::nullopt;
  }
  const std::optional<wire::Endpoint> endpoint = wire::parse_endpoint(controller);
  if (!endpoint) {
    err << "gaptrain-launch: --controller: expected HOST:PORT, got \"" << controller << "\"\n";
    return std::nullopt;
  }
  // CLI::Range lets NaN through (every comparison with it is false).
  if (!std::isfinite(grace_s)) {
    err << "gaptrain-launch: --grace-s: expected seconds between 0 and 3600, got " << grace_s
        << "\n";
    return std::nullopt;
  }
  const std::optional<int> signal = notice_signal_named(notice_signal);
  if (!signal) {
    err << "gaptrain-launch: --notice-signal: expected USR1, USR2, URG or none, got \""
        << notice_signal << "\"\n";
    return std::nullopt;
  }
  options.notice_signal = *signal;
  options.notice_signal_asked = app.count("--notice-signal") > 0;
  if (torchrun) {
    options.command.insert(options.command.begin(), {python, "-m", "gaptrain.torchrun"});
  }
  options.controller = *endpoint;
  options.munge_socket = munge_socket;
  options.poll = std::chrono::milliseconds(poll_ms);
  options.grace = std::chrono::milliseconds(std::llround(grace_s * 1000.0));
  exit_code = 0;
  return options;
}

}  // namespace gaptrain::launch
