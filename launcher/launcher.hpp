// gaptrain-launch's loop: one srun step of the training command per node of the job, kept in
// line with gaptraind's LaunchInstruction (reconcile.hpp decides, process.hpp acts). A node
// Slurm takes from the job is found out from Slurm itself and dropped, never counted as a
// failing step (node_loss.hpp): gaptraind may not answer at that moment. Signals are
// handled inside the loop: SIGTERM/SIGINT stop every step (SIGTERM, SIGKILL after the grace
// time) and end the launcher with 128 + the signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gaptrain/protocol.hpp"
#include "job_file.hpp"
#include "launch_options.hpp"
#include "node_loss.hpp"
#include "progress.hpp"
#include "reconcile.hpp"
#include "registration_retry.hpp"
#include "said_once.hpp"
#include "store_host.hpp"
#include "stranded.hpp"

namespace gaptrain::launch {

// What the launcher learns from Slurm at start, in the batch script's environment.
struct JobContext {
  std::uint32_t job_id = 0;
  std::string batch_host;          // SLURMD_NODENAME: the rendezvous host
  std::vector<std::string> nodes;  // SLURM_JOB_NODELIST expanded, batch host first
  std::string hostfile;            // where GAPTRAIN_HOSTFILE points
  std::string job_file;            // where GAPTRAIN_JOB_FILE points (job_file.hpp)
  std::string rdzv_host;           // the batch host's address (its NodeAddr)
  int rdzv_port = 29400;           // free on the batch host when the job started
  // The prefix of every key the job's workers keep in the rendezvous store. The store (torch's
  // TCPStore) answers anyone who reaches its port; a local user who knows no key name cannot
  // steer the training's membership. Random per launch, passed to the steps in their
  // environment only (another user can read a command line, not an environment).
  std::string store_secret;
  int min_nodes = 1;  // the registered range (GAPTRAIN_MIN/MAX_NODES)
  int max_nodes = 1;
  int workers_per_node = 1;  // GAPTRAIN_NPROC_PER_NODE (torchrun's --nproc_per_node)
  // What the plugin registered the job with (GAPTRAIN_REGISTRATION), sent again when gaptraind
  // does not know the job (registration_retry.hpp); empty when the plugin left none.
  std::optional<protocol::JobRegistration> registration;
};

class Launcher {
 public:
  Launcher(LaunchOptions options, JobContext job);

  // Runs until the training is done (0), fails for good (1) or a signal stops it (128 + it).
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  struct Step {
    pid_t pid = -1;
    StepPhase phase = StepPhase::running;
    std::string name;                // srun --job-name: how squeue shows the step
    std::uint32_t job_id = 0;        // the allocation it runs in: the job, or a satellite
    int failures = 0;                // consecutive non-zero exits on this node
    Clock::time_point started_at{};  // when its srun was started
    Clock::time_point restart_at{};  // waiting
    Clock::time_point stop_since{};  // stopping: when we asked it to stop
    bool term_delivered = false;     // stopping: SIGTERM reached its tasks (scancel)
    Clock::time_point term_after{};  // stopping: not before this (it may leave by itself)
    bool srun_terminated = false;    // stopping: grace over, srun told to kill its tasks
  };

  void report_and_follow();
  // Starts again the steps a training stranded on fewer workers than its nodes leaves idle.
  void restart_stranded(const std::optional<Progress>& progress);
  // Sends the job's registration again when the backoff allows (a report was refused: not
  // registered); true when gaptraind took it.
  bool register_again();
  std::vector<StepView> step_views(Clock::time_point now) const;
  void reconcile_and_act();
  void reap_steps(Clock::time_point now);
  // Asks Slurm whether `allocation` still holds `node` (node_loss.hpp).
  Holding holding_of(std::uint32_t allocation, const std::string& node) const;
  // The step on `node` ended because Slurm took the node: drop it, say so, train on.
  void drop_node_taken(const std::string& node, std::uint32_t allocation, const std::string& why);
  void advance_stops(Clock::time_point now);
  void start_step(const std::string& node);
  // What every worker's environment adds to the launcher's (and the store host's, at home).
  std::vector<std::string> worker_environment() const;
  // The first instruction said the job is at home: the store host starts, no worker runs here.
  void start_home();
  // No instruction came within kFirstInstructionPatience: train on the job's own nodes.
  void fail_open_without_instruction(Clock::time_point now);
  void request_stop(const std::string& node, Step& step);
  void deliver_term(Step& step);
  void update_hostfile();
  // Rewrites the job file when what the workers should know changed (a new generation).
  void update_job_file();
  // Tells every running step of notices not told yet: the job file, then the notice signal.
  void pass_on_notices();
  bool signal_step(Step& step, int signal);
  bool any_live() const;
  Clock::time_point next_wakeup(Clock::time_point now) const;
  int stop_everything(int exit_code);
  // The end-of-job lines in the job's output: what the job went through.
  void summarize() const;

  LaunchOptions options_;
  JobContext job_;
  protocol::LaunchInstruction desired_;  // the controller's latest, less the nodes taken back
  TakenBack taken_back_;
  std::map<std::string, Step> steps_;
  std::vector<std::string> acks_;            // drained nodes, for the next report
  std::vector<std::string> hostfile_nodes_;  // what the host file holds now
  Clock::time_point next_poll_{};
  std::optional<std::string> outage_;  // why the controller is not answering, while it is not
  int unanswered_ = 0;                 // reports in a row without an instruction
  bool ever_answered_ = false;         // a report was answered: the job was registered once
  RegistrationRetry registration_retry_;
  StrandedWatch stranded_;                 // a training on fewer workers than its nodes
  ProgressFeed progress_feed_;             // the progress file's readings that are taken
  SaidOnce hostfile_failure_;              // the host file cannot be written
  SaidOnce job_file_failure_;              // the job file cannot be written
  JobFileView job_view_;                   // what the job file holds now
  std::map<std::string, double> noticed_;  // notices the steps were told of
  int grows_ = 0;                          // resizes seen, for the summary
  int shrinks_ = 0;
  int regroups_ = 0;  // steps started again on the helper's request
  // Nodes Slurm took (taken_back_ keeps only those instructions still name), for the summary.
  int nodes_taken_back_ = 0;
  Clock::time_point started_{};
  std::optional<Progress> first_progress_;  // for the summary's throughput
  std::optional<Progress> last_progress_;
  bool ack_now_ = false;       // a step asked to leave has left: report its ack at once
  bool finishing_ = false;     // a step exited 0: the training is over
  bool stopping_all_ = false;  // stop_everything() runs
  bool failed_ = false;        // a step failed after finishing began, or for good
  bool instructed_ = false;    // an instruction was followed, or the wait for one given up
  bool home_ = false;          // the job is at home (LaunchInstruction::home)
  bool paused_ = false;        // at home with no node to train on
  std::optional<StoreHost> store_host_;  // at home: the job's rendezvous store
  int serial_ = 0;
};

}  // namespace gaptrain::launch
