#include "options.hpp"

#include <cmath>

#include "gaptrain/cli11.hpp"

namespace gaptrain::launch {

namespace {

constexpr const char* kFooter = R"(
Run it as the batch script of an elastic job (sbatch takes scripts, not binaries: use --wrap,
or `exec gaptrain-launch -- ...` as the last line of a script):
  sbatch -p elastic -N 1-8 --elastic=1-8 --wrap 'exec gaptrain-launch -- examples/pytorch-elastic/run_node.sh ...'
It runs CMD once per node of the job (one `srun` step each) and follows gaptraind: new nodes
get a step, nodes to give back have theirs stopped (SIGTERM, SIGKILL after --grace-s) first.
Each step sees GAPTRAIN_HOSTFILE (the job's nodes, one a line, batch host first),
GAPTRAIN_NNODES, GAPTRAIN_MASTER_ADDR (the batch host) and GAPTRAIN_JOB_ID (the job: on nodes
it grew into, the step runs in a satellite allocation with its own SLURM_JOB_ID), e.g. for
  python3 -m torch.distributed.run --nnodes=1:8 --rdzv_backend=c10d \
      --rdzv_endpoint=$GAPTRAIN_MASTER_ADDR:29500 ...  (examples/pytorch-elastic/run_node.sh)
The job ends when CMD exits 0 on every node; a failing step is restarted (--max-restarts).)";

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
  options.controller = *endpoint;
  options.munge_socket = munge_socket;
  options.poll = std::chrono::milliseconds(poll_ms);
  options.grace = std::chrono::milliseconds(std::llround(grace_s * 1000.0));
  exit_code = 0;
  return options;
}

}  // namespace gaptrain::launch
