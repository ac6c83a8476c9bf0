// gaptrain-launch's part in the home mode (LaunchInstruction::home): the job's batch script runs
// on a home node that never trains; the launcher serves the job's store there (store_host.hpp)
// and starts workers only on the nodes gaptraind gives, none while the job is paused.
#include <cstdlib>

#include "launcher.hpp"
#include "output.hpp"
#include "process.hpp"

namespace gaptrain::launch {

namespace {

// How long the launcher waits for gaptraind's first instruction before it trains on the job's
// own nodes (fail open): a job at home must not train on its home node, and only gaptraind can
// say that it is at home.
constexpr std::chrono::seconds kFirstInstructionPatience{10};

}  // namespace

std::vector<std::string> Launcher::worker_environment() const {
  // The rank-0 host of today's mode: the batch host, which trains; at home no worker runs on
  // it (it serves the store), and GAPTRAIN_HOME_MODE tells the workers so.
  const std::string master =
      home_ || desired_.nodes.empty() ? job_.batch_host : desired_.nodes.front();
  return environment_with(
      {"GAPTRAIN_HOSTFILE=" + job_.hostfile,
       "GAPTRAIN_NNODES=" + std::to_string(wanted_nodes(desired_).size()),
       "GAPTRAIN_MASTER_ADDR=" + master, std::string("GAPTRAIN_HOME_MODE=") + (home_ ? "1" : "0"),
       // In a satellite SLURM_JOB_ID is the satellite's: this is the job's.
       "GAPTRAIN_JOB_ID=" + std::to_string(job_.job_id), "GAPTRAIN_JOB_FILE=" + job_.job_file,
       "GAPTRAIN_PROGRESS_FILE=" + options_.progress_file, "GAPTRAIN_RDZV_HOST=" + job_.rdzv_host,
       "GAPTRAIN_RDZV_PORT=" + std::to_string(job_.rdzv_port),
       "GAPTRAIN_STORE_SECRET=" + job_.store_secret,
       "GAPTRAIN_MIN_NODES=" + std::to_string(job_.min_nodes),
       "GAPTRAIN_MAX_NODES=" + std::to_string(job_.max_nodes),
       "GAPTRAIN_NOTICE_SIGNAL=" + std::to_string(options_.notice_signal),
       "GAPTRAIN_MAX_RESTARTS=" + std::to_string(options_.max_restarts)});
}

void Launcher::start_home() {
  home_ = true;
  say("the job is at home: its batch script runs on " + job_.batch_host +
      ", which does not train; every node it trains on is one gaptraind gives it");
  store_host_.emplace(StoreHost::command(std::getenv("GAPTRAIN_PYTHON"), options_.command),
                      worker_environment());
  if (const std::optional<std::string> line = store_host_->keep_running(Clock::now())) say(*line);
}

void Launcher::fail_open_without_instruction(Clock::time_point now) {
  if (instructed_ || now - started_ < kFirstInstructionPatience) return;
  instructed_ = true;
  desired_.nodes = job_.nodes;
  say("no instruction from the controller within " +
      std::to_string(kFirstInstructionPatience.count()) + " s: training on the job's own nodes (" +
      join(job_.nodes) + ")");
}

}  // namespace gaptrain::launch
